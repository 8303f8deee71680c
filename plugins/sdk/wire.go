package sdk

import (
	"encoding/json"
	"fmt"

	"github.com/helios-agents/helios/kernel/hookwire"
	"github.com/helios-agents/helios/plugins"
	"github.com/helios-agents/helios/plugins/proto"
)

// The standard points' payloads and results in their native form (package
// proto), converted to and from this package's types (package hookwire) as
// their JSON would be: the same values, with the empty lists of the JSON the
// kernel sends present and empty, never nil.

// fromNative returns the payload of req as the point's type (PrepareIn,
// ToolBeforeIn, ...), or native=false when req carries JSON. A native
// payload of another point than req's is an error naming both.
func fromNative(req *proto.HandleRequest) (in any, native bool, err error) {
	var got string
	switch p := req.GetInput().(type) {
	case *proto.HandleRequest_SessionStart:
		got, in = "session:start", hookwire.SessionStart{SessionID: p.SessionStart.GetSessionId(), WorkDir: p.SessionStart.GetWorkDir()}
	case *proto.HandleRequest_Prepare:
		m := p.Prepare
		skills := make([]hookwire.Skill, len(m.GetSkills()))
		for i, s := range m.GetSkills() {
			skills[i] = hookwire.Skill{Name: s.GetName(), Description: s.GetDescription(), Source: s.GetSource()}
		}
		got, in = "context:prepare", hookwire.Prepare{SessionID: m.GetSessionId(), Step: int(m.GetStep()), Skills: skills, Complete: m.GetComplete()}
	case *proto.HandleRequest_ToolBefore:
		got, in = "tool:before", hookwire.ToolBefore{SessionID: p.ToolBefore.GetSessionId(), Call: toolCall(p.ToolBefore.GetCall())}
	case *proto.HandleRequest_TurnEnd:
		m := p.TurnEnd
		calls := make([]hookwire.ToolCall, len(m.GetToolCalls()))
		for i, c := range m.GetToolCalls() {
			calls[i] = toolCall(c)
		}
		got, in = "turn:end", hookwire.TurnEnd{SessionID: m.GetSessionId(), Step: int(m.GetStep()), Text: m.GetText(), ToolCalls: calls}
	case *proto.HandleRequest_Compact:
		m := p.Compact
		events := make([]hookwire.Event, len(m.GetEvents()))
		for i, e := range m.GetEvents() {
			events[i] = hookwire.Event{Seq: e.GetSeq(), Type: e.GetType(), Text: e.GetText(), ToolName: e.GetToolName(), Input: e.GetInput(), IsError: e.GetIsError()}
		}
		got, in = "context:compact", hookwire.Compact{SessionID: m.GetSessionId(), ViewBytes: int(m.GetViewBytes()), Budget: int(m.GetBudget()), Events: events}
	default: // JSON, or no payload at all (which JSON decoding refuses)
		return nil, false, nil
	}
	if point := req.GetPoint(); got != point {
		return nil, true, fmt.Errorf("%s: decode payload: the kernel sent a %s payload", point, got)
	}
	return in, true, nil
}

func toolCall(c *proto.ToolCall) hookwire.ToolCall {
	return hookwire.ToolCall{ID: c.GetId(), Name: c.GetName(), Arguments: c.GetArguments()}
}

// answer is the reply to a native payload: the point's native result when
// out has the point's result type, else out in JSON (a handler of a custom
// type may answer with anything that marshals to the point's result).
// Text is made valid UTF-8 as JSON would make it.
func answer(point string, out any) (*proto.HandleResponse, error) {
	r := &proto.HandleResponse{Handled: true}
	switch v := out.(type) {
	case string:
		if point == "session:start" || point == "context:prepare" {
			r.Output = &proto.HandleResponse_Text{Text: plugins.ValidUTF8(v)}
		}
	case hookwire.ToolDecision:
		if point == "tool:before" {
			if len(v.Args) > 0 && !json.Valid(v.Args) {
				return nil, fmt.Errorf("%s: encode result: the replaced arguments are not JSON", point)
			}
			r.Output = &proto.HandleResponse_ToolDecision{ToolDecision: &proto.ToolDecision{Deny: v.Deny, Reason: plugins.ValidUTF8(v.Reason), Args: v.Args}}
		}
	case hookwire.TurnDecision:
		if point == "turn:end" {
			r.Output = &proto.HandleResponse_TurnDecision{TurnDecision: &proto.TurnDecision{End: v.End}}
		}
	case hookwire.Compaction:
		if point == "context:compact" {
			r.Output = &proto.HandleResponse_Compaction{Compaction: &proto.Compaction{From: v.From, To: v.To, Summary: plugins.ValidUTF8(v.Summary)}}
		}
	}
	if r.Output == nil {
		data, err := json.Marshal(out)
		if err != nil {
			return nil, fmt.Errorf("%s: encode result: %w", point, err)
		}
		r.Output = &proto.HandleResponse_Result{Result: data}
	}
	return r, nil
}
