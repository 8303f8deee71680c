package host

import (
	"encoding/json"
	"fmt"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/hookwire"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/session"
)

// encodeHookInput turns a point's in-process payload into the JSON a plugin
// receives (package hookwire). Payloads of custom points are marshalled as
// they are.
func encodeHookInput(point string, in any) ([]byte, error) {
	var w any
	switch v := in.(type) {
	case kernel.SessionStartIn:
		w = hookwire.SessionStart{SessionID: v.SessionID, WorkDir: v.WorkDir}
	case kernel.PrepareIn:
		p := hookwire.Prepare{SessionID: v.SessionID, Step: v.Step, Complete: v.Catalog.Complete, Skills: []hookwire.Skill{}}
		for _, s := range v.Catalog.Visible() {
			p.Skills = append(p.Skills, hookwire.Skill{Name: s.Name, Description: s.Description, Source: s.Source})
		}
		w = p
	case kernel.ToolBeforeIn:
		w = hookwire.ToolBefore{SessionID: v.SessionID, Call: wireCall(v.Call)}
	case kernel.TurnEndIn:
		t := hookwire.TurnEnd{SessionID: v.SessionID, Step: v.Step, Text: v.Response.Text, ToolCalls: []hookwire.ToolCall{}}
		for _, c := range v.Response.ToolCalls {
			t.ToolCalls = append(t.ToolCalls, wireCall(c))
		}
		w = t
	case kernel.CompactIn:
		c := hookwire.Compact{SessionID: v.SessionID, ViewBytes: v.ViewBytes, Budget: v.Budget, Events: []hookwire.Event{}}
		if v.Log != nil {
			for _, ev := range session.ModelView(v.Log) {
				c.Events = append(c.Events, hookwire.Event{Seq: ev.Seq, Type: string(ev.Type), Text: ev.Text, ToolName: ev.ToolName, Input: string(ev.Input), IsError: ev.IsError})
			}
		}
		w = c
	default:
		w = in
	}
	data, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("encode %s payload: %w", point, err)
	}
	return data, nil
}

// decodeHookOutput turns a plugin's JSON result for a standard point into
// the value the typed point expects (string, kernel.ToolDecision,
// kernel.TurnDecision, kernel.Compaction). Results of custom points stay json.RawMessage.
func decodeHookOutput(point string, data []byte) (any, error) {
	bad := func(err error) (any, error) { return nil, fmt.Errorf("decode %s result: %w", point, err) }
	switch point {
	case hooks.SessionStart.Name, hooks.ContextPrepare.Name:
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return bad(err)
		}
		return s, nil
	case hooks.ToolBefore.Name:
		var d hookwire.ToolDecision
		if err := json.Unmarshal(data, &d); err != nil {
			return bad(err)
		}
		return kernel.ToolDecision{Deny: d.Deny, Reason: d.Reason, Args: d.Args}, nil
	case hooks.TurnEnd.Name:
		var d hookwire.TurnDecision
		if err := json.Unmarshal(data, &d); err != nil {
			return bad(err)
		}
		return kernel.TurnDecision{End: d.End}, nil
	case hooks.ContextCompact.Name:
		var c hookwire.Compaction
		if err := json.Unmarshal(data, &c); err != nil {
			return bad(err)
		}
		if c.From < 1 || c.To < c.From {
			return bad(fmt.Errorf("span [%d, %d] is not a valid range of events", c.From, c.To))
		}
		return kernel.Compaction{From: c.From, To: c.To, Summary: c.Summary}, nil
	}
	return json.RawMessage(data), nil
}

func wireCall(c model.ToolCall) hookwire.ToolCall {
	return hookwire.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
}
