package wire

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/kernel/hookdata"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/utf8text"
	"github.com/helios-agents/helios/plugins/internal/proto"
)

// A hook call has one encoding per point. A standard point's payload and
// result travel in their protobuf messages, converted field by field from
// and to their kernel/hookdata types; any other point's travel as JSON. The
// host sends a payload with setInput and reads the answer with output; the
// plugin reads the payload with input and answers with setOutput. Text is
// made valid UTF-8 on the way (protobuf refuses a string that is not), as
// encoding/json would make it.
//
// A standard point adds a case to each of the four, and the conversions of
// its messages below them.

var text = utf8text.Valid

// setInput sets req's payload from in, a payload of req.Point.
func setInput(req *proto.HandleRequest, in any) error {
	switch v := in.(type) {
	case hookdata.SessionStartIn:
		req.Input = &proto.HandleRequest_SessionStart{SessionStart: &proto.SessionStart{SessionId: text(v.SessionID), WorkDir: text(v.WorkDir)}}
	case hookdata.PrepareIn:
		req.Input = &proto.HandleRequest_Prepare{Prepare: prepareMsg(v)}
	case hookdata.ToolBeforeIn:
		req.Input = &proto.HandleRequest_ToolBefore{ToolBefore: &proto.ToolBefore{SessionId: text(v.SessionID), Call: toolCallMsg(v.Call), Annotations: annotationsMsg(v.Annotations)}}
	case hookdata.TurnEndIn:
		req.Input = &proto.HandleRequest_TurnEnd{TurnEnd: turnEndMsg(v)}
	case hookdata.CompactIn:
		req.Input = &proto.HandleRequest_Compact{Compact: compactMsg(v)}
	case hookdata.PromptSubmitIn:
		req.Input = &proto.HandleRequest_PromptSubmit{PromptSubmit: &proto.PromptSubmit{SessionId: text(v.SessionID), Prompt: text(v.Prompt)}}
	case hookdata.ToolAfterIn:
		req.Input = &proto.HandleRequest_ToolAfter{ToolAfter: &proto.ToolAfter{SessionId: text(v.SessionID), Call: toolCallMsg(v.Call), Content: text(v.Content), IsError: v.IsError}}
	case hookdata.CompactBeforeIn:
		req.Input = &proto.HandleRequest_CompactBefore{CompactBefore: &proto.CompactBefore{SessionId: text(v.SessionID), ViewBytes: int64(v.ViewBytes), Budget: int64(v.Budget)}}
	case hookdata.SessionEndIn:
		req.Input = &proto.HandleRequest_SessionEnd{SessionEnd: &proto.SessionEnd{SessionId: text(v.SessionID), WorkDir: text(v.WorkDir)}}
	default:
		if standard(req.Point) {
			return fmt.Errorf("encode %s payload: got %T, which is not the point's payload", req.Point, in)
		}
		data, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encode %s payload: %w", req.Point, err)
		}
		req.Input = &proto.HandleRequest_Payload{Payload: data}
		return nil
	}
	if got := inputPoint(req); got != req.Point {
		return fmt.Errorf("encode %s payload: got the payload of %s", req.Point, got)
	}
	return nil
}

// input returns req's payload as the point's type: the kernel/hookdata type
// of a standard point, JSON (json.RawMessage) for any other.
func input(req *proto.HandleRequest) (any, error) {
	point := req.GetPoint()
	bad := func(err error) (any, error) { return nil, fmt.Errorf("decode %s payload: %w", point, err) }
	if p, ok := req.GetInput().(*proto.HandleRequest_Payload); ok {
		if standard(point) {
			return bad(errors.New("the kernel sent JSON, not the point's message"))
		}
		return json.RawMessage(p.Payload), nil
	}
	switch got := inputPoint(req); {
	case got == "":
		return bad(errors.New("the kernel sent no payload"))
	case got != point:
		return bad(fmt.Errorf("the kernel sent a %s payload", got))
	}
	switch p := req.GetInput().(type) {
	case *proto.HandleRequest_SessionStart:
		return hookdata.SessionStartIn{SessionID: p.SessionStart.GetSessionId(), WorkDir: p.SessionStart.GetWorkDir()}, nil
	case *proto.HandleRequest_Prepare:
		return prepareIn(p.Prepare), nil
	case *proto.HandleRequest_ToolBefore:
		return hookdata.ToolBeforeIn{SessionID: p.ToolBefore.GetSessionId(), Call: toolCall(p.ToolBefore.GetCall()), Annotations: annotations(p.ToolBefore.GetAnnotations())}, nil
	case *proto.HandleRequest_TurnEnd:
		return turnEndIn(p.TurnEnd), nil
	case *proto.HandleRequest_Compact:
		return compactIn(p.Compact), nil
	case *proto.HandleRequest_PromptSubmit:
		return hookdata.PromptSubmitIn{SessionID: p.PromptSubmit.GetSessionId(), Prompt: p.PromptSubmit.GetPrompt()}, nil
	case *proto.HandleRequest_ToolAfter:
		m := p.ToolAfter
		return hookdata.ToolAfterIn{SessionID: m.GetSessionId(), Call: toolCall(m.GetCall()), Content: m.GetContent(), IsError: m.GetIsError()}, nil
	case *proto.HandleRequest_CompactBefore:
		m := p.CompactBefore
		return hookdata.CompactBeforeIn{SessionID: m.GetSessionId(), ViewBytes: int(m.GetViewBytes()), Budget: int(m.GetBudget())}, nil
	case *proto.HandleRequest_SessionEnd:
		return hookdata.SessionEndIn{SessionID: p.SessionEnd.GetSessionId(), WorkDir: p.SessionEnd.GetWorkDir()}, nil
	}
	return bad(errors.New("the kernel sent an unknown payload")) // inputPoint knows no other
}

// inputPoint names the standard point whose message req carries, "" when
// it carries JSON or nothing.
func inputPoint(req *proto.HandleRequest) string {
	switch req.GetInput().(type) {
	case *proto.HandleRequest_SessionStart:
		return hooks.SessionStart.Name
	case *proto.HandleRequest_Prepare:
		return hooks.ContextPrepare.Name
	case *proto.HandleRequest_ToolBefore:
		return hooks.ToolBefore.Name
	case *proto.HandleRequest_TurnEnd:
		return hooks.TurnEnd.Name
	case *proto.HandleRequest_Compact:
		return hooks.ContextCompact.Name
	case *proto.HandleRequest_PromptSubmit:
		return hooks.PromptSubmit.Name
	case *proto.HandleRequest_ToolAfter:
		return hooks.ToolAfter.Name
	case *proto.HandleRequest_CompactBefore:
		return hooks.CompactBefore.Name
	case *proto.HandleRequest_SessionEnd:
		return hooks.SessionEnd.Name
	}
	return ""
}

// setOutput is the answer carrying v, a handled result of point.
func setOutput(point string, v any) (*proto.HandleResponse, error) {
	r := &proto.HandleResponse{Handled: true}
	var ok bool
	var want any
	switch point {
	case hooks.SessionStart.Name, hooks.ContextPrepare.Name:
		var s string
		if s, ok = v.(string); ok {
			r.Output = &proto.HandleResponse_Text{Text: text(s)}
		}
		want = s
	case hooks.ToolBefore.Name:
		var d hookdata.ToolDecision
		if d, ok = v.(hookdata.ToolDecision); ok {
			r.Output = &proto.HandleResponse_ToolDecision{ToolDecision: &proto.ToolDecision{Deny: d.Deny, Reason: text(d.Reason), Args: d.Args,
				Ask: d.Ask, Stop: d.Stop, StopReason: text(d.StopReason)}}
		}
		want = d
	case hooks.TurnEnd.Name:
		var d hookdata.TurnDecision
		if d, ok = v.(hookdata.TurnDecision); ok {
			r.Output = &proto.HandleResponse_TurnDecision{TurnDecision: &proto.TurnDecision{End: d.End, Reason: text(d.Reason)}}
		}
		want = d
	case hooks.PromptSubmit.Name:
		var d hookdata.PromptDecision
		if d, ok = v.(hookdata.PromptDecision); ok {
			r.Output = &proto.HandleResponse_PromptDecision{PromptDecision: &proto.PromptDecision{Block: d.Block, Reason: text(d.Reason), Context: text(d.Context)}}
		}
		want = d
	case hooks.ToolAfter.Name:
		var f hookdata.ToolFeedback
		if f, ok = v.(hookdata.ToolFeedback); ok {
			r.Output = &proto.HandleResponse_ToolFeedback{ToolFeedback: &proto.ToolFeedback{Context: text(f.Context), Stop: f.Stop, StopReason: text(f.StopReason)}}
		}
		want = f
	case hooks.CompactBefore.Name, hooks.SessionEnd.Name:
		// A notification has no result: the answer carries none.
		_, ok = v.(struct{})
		want = struct{}{}
	case hooks.ContextCompact.Name:
		var c hookdata.Compaction
		if c, ok = v.(hookdata.Compaction); ok {
			r.Output = &proto.HandleResponse_Compaction{Compaction: &proto.Compaction{From: c.From, To: c.To, Summary: text(c.Summary)}}
		}
		want = c
	default:
		data, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("encode %s result: %w", point, err)
		}
		r.Output = &proto.HandleResponse_Result{Result: data}
		return r, nil
	}
	if !ok {
		return nil, fmt.Errorf("encode %s result: got %T, want %T", point, v, want)
	}
	return r, nil
}

// output returns the handled answer r as point's result, under the point's
// rules: replaced tool arguments are JSON, a compaction's span is a range
// of events. Another point's result, or none, is an error naming the point.
func output(point string, r *proto.HandleResponse) (any, error) {
	bad := func(err error) (any, error) { return nil, fmt.Errorf("decode %s result: %w", point, err) }
	var got string
	switch o := r.GetOutput().(type) {
	case nil:
		if point == hooks.CompactBefore.Name || point == hooks.SessionEnd.Name {
			return struct{}{}, nil // a notification has no result
		}
		return bad(errors.New("the plugin handled the call but sent no result"))
	case *proto.HandleResponse_Result:
		if !standard(point) {
			return json.RawMessage(o.Result), nil
		}
		got = "JSON result"
	case *proto.HandleResponse_Text:
		if point == hooks.SessionStart.Name || point == hooks.ContextPrepare.Name {
			return o.Text, nil
		}
		got = "text"
	case *proto.HandleResponse_ToolDecision:
		if point == hooks.ToolBefore.Name {
			d := o.ToolDecision
			if len(d.GetArgs()) > 0 && !json.Valid(d.GetArgs()) {
				return bad(errors.New("the replaced arguments are not JSON"))
			}
			return hookdata.ToolDecision{Deny: d.GetDeny(), Reason: d.GetReason(), Args: d.GetArgs(),
				Ask: d.GetAsk(), Stop: d.GetStop(), StopReason: d.GetStopReason()}, nil
		}
		got = "tool decision"
	case *proto.HandleResponse_TurnDecision:
		if point == hooks.TurnEnd.Name {
			return hookdata.TurnDecision{End: o.TurnDecision.GetEnd(), Reason: o.TurnDecision.GetReason()}, nil
		}
		got = "turn decision"
	case *proto.HandleResponse_PromptDecision:
		if point == hooks.PromptSubmit.Name {
			d := o.PromptDecision
			return hookdata.PromptDecision{Block: d.GetBlock(), Reason: d.GetReason(), Context: d.GetContext()}, nil
		}
		got = "prompt decision"
	case *proto.HandleResponse_ToolFeedback:
		if point == hooks.ToolAfter.Name {
			f := o.ToolFeedback
			return hookdata.ToolFeedback{Context: f.GetContext(), Stop: f.GetStop(), StopReason: f.GetStopReason()}, nil
		}
		got = "tool feedback"
	case *proto.HandleResponse_Compaction:
		if point == hooks.ContextCompact.Name {
			c := o.Compaction
			if c.GetFrom() < 1 || c.GetTo() < c.GetFrom() {
				return bad(fmt.Errorf("span [%d, %d] is not a valid range of events", c.GetFrom(), c.GetTo()))
			}
			return hookdata.Compaction{From: c.GetFrom(), To: c.GetTo(), Summary: c.GetSummary()}, nil
		}
		got = "compaction"
	}
	return bad(fmt.Errorf("a %s is not a result of this point", got))
}

// standard says whether point is a standard point, whose payload and result
// travel in their messages.
func standard(point string) bool {
	for _, p := range hooks.StandardPoints() {
		if p.Name == point {
			return true
		}
	}
	return false
}

// The payloads' messages, both ways.

func prepareMsg(v hookdata.PrepareIn) *proto.Prepare {
	m := &proto.Prepare{SessionId: text(v.SessionID), Step: int64(v.Step), Complete: v.Complete, Skills: make([]*proto.CatalogSkill, len(v.Skills))}
	for i, s := range v.Skills {
		m.Skills[i] = &proto.CatalogSkill{Name: text(s.Name), Description: text(s.Description), Source: text(s.Source)}
	}
	return m
}

func prepareIn(m *proto.Prepare) hookdata.PrepareIn {
	in := hookdata.PrepareIn{SessionID: m.GetSessionId(), Step: int(m.GetStep()), Complete: m.GetComplete(), Skills: make([]hookdata.Skill, len(m.GetSkills()))}
	for i, s := range m.GetSkills() {
		in.Skills[i] = hookdata.Skill{Name: s.GetName(), Description: s.GetDescription(), Source: s.GetSource()}
	}
	return in
}

func toolCallMsg(c hookdata.ToolCall) *proto.ToolCall {
	return &proto.ToolCall{Id: text(c.ID), Name: text(c.Name), Arguments: c.Arguments}
}

func toolCall(m *proto.ToolCall) hookdata.ToolCall {
	return hookdata.ToolCall{ID: m.GetId(), Name: m.GetName(), Arguments: m.GetArguments()}
}

func annotationsMsg(a *contract.ToolAnnotations) *proto.ToolAnnotations {
	if a == nil {
		return nil
	}
	return &proto.ToolAnnotations{Title: text(a.Title), ReadOnly: a.ReadOnly, Destructive: a.Destructive, Idempotent: a.Idempotent, OpenWorld: a.OpenWorld}
}

func annotations(m *proto.ToolAnnotations) *contract.ToolAnnotations {
	if m == nil {
		return nil
	}
	return &contract.ToolAnnotations{Title: m.GetTitle(), ReadOnly: m.GetReadOnly(), Destructive: m.GetDestructive(), Idempotent: m.GetIdempotent(), OpenWorld: m.GetOpenWorld()}
}

func turnEndMsg(v hookdata.TurnEndIn) *proto.TurnEnd {
	m := &proto.TurnEnd{SessionId: text(v.SessionID), Step: int64(v.Step), Text: text(v.Text), Continued: v.Continued, ToolCalls: make([]*proto.ToolCall, len(v.ToolCalls))}
	for i, c := range v.ToolCalls {
		m.ToolCalls[i] = toolCallMsg(c)
	}
	return m
}

func turnEndIn(m *proto.TurnEnd) hookdata.TurnEndIn {
	in := hookdata.TurnEndIn{SessionID: m.GetSessionId(), Step: int(m.GetStep()), Text: m.GetText(), Continued: m.GetContinued(), ToolCalls: make([]hookdata.ToolCall, len(m.GetToolCalls()))}
	for i, c := range m.GetToolCalls() {
		in.ToolCalls[i] = toolCall(c)
	}
	return in
}

func compactMsg(v hookdata.CompactIn) *proto.Compact {
	m := &proto.Compact{SessionId: text(v.SessionID), ViewBytes: int64(v.ViewBytes), Budget: int64(v.Budget), Events: make([]*proto.Event, len(v.Events))}
	for i, e := range v.Events {
		m.Events[i] = &proto.Event{Seq: e.Seq, Type: text(e.Type), Text: text(e.Text), ToolName: text(e.ToolName), Input: text(e.Input), IsError: e.IsError, From: e.From, To: e.To}
	}
	return m
}

func compactIn(m *proto.Compact) hookdata.CompactIn {
	in := hookdata.CompactIn{SessionID: m.GetSessionId(), ViewBytes: int(m.GetViewBytes()), Budget: int(m.GetBudget()), Events: make([]hookdata.Event, len(m.GetEvents()))}
	for i, e := range m.GetEvents() {
		in.Events[i] = hookdata.Event{Seq: e.GetSeq(), Type: e.GetType(), Text: e.GetText(), ToolName: e.GetToolName(), Input: e.GetInput(), IsError: e.GetIsError(), From: e.GetFrom(), To: e.GetTo()}
	}
	return in
}
