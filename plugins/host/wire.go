package host

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/helios-agents/helios/kernel"
	"github.com/helios-agents/helios/kernel/hooks"
	"github.com/helios-agents/helios/kernel/hookwire"
	"github.com/helios-agents/helios/kernel/model"
	"github.com/helios-agents/helios/kernel/session"
	"github.com/helios-agents/helios/plugins"
	"github.com/helios-agents/helios/plugins/proto"
)

// A hook payload crosses the wire in one of two forms. A plugin that says
// NativeHooks gets the standard points' payloads in their native protobuf
// messages, and may answer in them; every other plugin, and every plugin on
// a custom point, gets the JSON of package hookwire. Either answer decodes
// to the same values, under the same rules.

// hookCall holds the messages of one hook call. They are reused from call
// to call (callPool): the request is marshalled, and the answer read into
// resp, before the call returns, and what the host keeps of the answer was
// allocated by protobuf for it.
type hookCall struct {
	req  proto.HandleRequest
	resp proto.HandleResponse

	json    proto.HandleRequest_Payload
	start   proto.HandleRequest_SessionStart
	prepare proto.HandleRequest_Prepare
	before  proto.HandleRequest_ToolBefore
	turn    proto.HandleRequest_TurnEnd
	compact proto.HandleRequest_Compact

	startMsg   proto.SessionStart
	prepareMsg proto.Prepare
	beforeMsg  proto.ToolBefore
	turnMsg    proto.TurnEnd
	compactMsg proto.Compact
	call       proto.ToolCall

	// Grown as needed, never shrunk; a call uses the first n of each.
	skills []*proto.CatalogSkill
	calls  []*proto.ToolCall
	events []*proto.Event
}

var callPool = sync.Pool{New: func() any { return new(hookCall) }}

// getCall returns a hookCall for point and mount, with no payload yet.
func getCall(point, mount string) *hookCall {
	hc := callPool.Get().(*hookCall)
	hc.req.Point, hc.req.Mount = point, mount
	return hc
}

// release clears what the call set, so the pool keeps no kernel data
// alive, and returns hc to the pool.
func (hc *hookCall) release() {
	switch hc.req.Input.(type) {
	case *proto.HandleRequest_Payload:
		hc.json.Payload = nil
	case *proto.HandleRequest_SessionStart:
		hc.startMsg.Reset()
	case *proto.HandleRequest_Prepare:
		for _, s := range hc.prepareMsg.Skills {
			s.Reset()
		}
		hc.prepareMsg.Reset()
	case *proto.HandleRequest_ToolBefore:
		hc.call.Reset()
		hc.beforeMsg.Reset()
	case *proto.HandleRequest_TurnEnd:
		for _, c := range hc.turnMsg.ToolCalls {
			c.Reset()
		}
		hc.turnMsg.Reset()
	case *proto.HandleRequest_Compact:
		for _, e := range hc.compactMsg.Events {
			e.Reset()
		}
		hc.compactMsg.Reset()
	}
	hc.req.Reset()
	hc.resp.Reset()
	callPool.Put(hc)
}

// setInput sets the call's payload: the native message of a standard
// point's payload when native, else its JSON.
func (hc *hookCall) setInput(point string, in any, native bool) error {
	if native && hc.setNative(in) {
		return nil
	}
	data, err := encodeHookInput(point, in)
	if err != nil {
		return err
	}
	hc.json.Payload = data
	hc.req.Input = &hc.json
	return nil
}

// setNative sets the native message of in, a standard point's payload, or
// reports that in is not one. Text is made valid UTF-8 as JSON would make
// it.
func (hc *hookCall) setNative(in any) bool {
	text := plugins.ValidUTF8
	call := func(m *proto.ToolCall, c model.ToolCall) {
		m.Id, m.Name, m.Arguments = text(c.ID), text(c.Name), c.Arguments
	}
	switch v := in.(type) {
	case kernel.SessionStartIn:
		m := &hc.startMsg
		m.SessionId, m.WorkDir = text(v.SessionID), text(v.WorkDir)
		hc.start.SessionStart = m
		hc.req.Input = &hc.start
	case kernel.PrepareIn:
		m := &hc.prepareMsg
		m.SessionId, m.Step, m.Complete = text(v.SessionID), int64(v.Step), v.Catalog.Complete
		// The skills of Catalog.Visible, without its copy of the catalog.
		n := 0
		for i := range v.Catalog.Skills {
			s := &v.Catalog.Skills[i]
			if s.DisableModelInvocation {
				continue
			}
			cs := grow(&hc.skills, n)
			cs.Name, cs.Description, cs.Source = text(s.Name), text(s.Description), text(s.Source)
			n++
		}
		m.Skills = hc.skills[:n]
		hc.prepare.Prepare = m
		hc.req.Input = &hc.prepare
	case kernel.ToolBeforeIn:
		m := &hc.beforeMsg
		m.SessionId = text(v.SessionID)
		call(&hc.call, v.Call)
		m.Call = &hc.call
		hc.before.ToolBefore = m
		hc.req.Input = &hc.before
	case kernel.TurnEndIn:
		m := &hc.turnMsg
		m.SessionId, m.Step, m.Text = text(v.SessionID), int64(v.Step), text(v.Response.Text)
		for i, c := range v.Response.ToolCalls {
			call(grow(&hc.calls, i), c)
		}
		m.ToolCalls = hc.calls[:len(v.Response.ToolCalls)]
		hc.turn.TurnEnd = m
		hc.req.Input = &hc.turn
	case kernel.CompactIn:
		m := &hc.compactMsg
		m.SessionId, m.ViewBytes, m.Budget = text(v.SessionID), int64(v.ViewBytes), int64(v.Budget)
		n := 0
		if v.Log != nil {
			for _, ev := range session.ModelView(v.Log) {
				e := grow(&hc.events, n)
				e.Seq, e.Type, e.Text, e.ToolName, e.Input, e.IsError = ev.Seq, text(string(ev.Type)), text(ev.Text), text(ev.ToolName), text(string(ev.Input)), ev.IsError
				n++
			}
		}
		m.Events = hc.events[:n]
		hc.compact.Compact = m
		hc.req.Input = &hc.compact
	default:
		return false
	}
	return true
}

// grow returns (*list)[i], allocating the message when the list is shorter.
func grow[M any](list *[]*M, i int) *M {
	for len(*list) <= i {
		*list = append(*list, new(M))
	}
	return (*list)[i]
}

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

// decodeHookAnswer turns a plugin's handled answer into the value the
// typed point expects, whichever form it came in: JSON (decodeHookOutput),
// or the point's native output. Another point's native output, or none,
// is an error naming the point.
func decodeHookAnswer(point string, r *proto.HandleResponse) (any, error) {
	bad := func(err error) (any, error) { return nil, fmt.Errorf("decode %s result: %w", point, err) }
	var got string
	switch o := r.GetOutput().(type) {
	case *proto.HandleResponse_Result:
		return decodeHookOutput(point, o.Result)
	case nil:
		return bad(errors.New("the plugin handled the call but sent no result"))
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
			return kernel.ToolDecision{Deny: d.GetDeny(), Reason: d.GetReason(), Args: d.GetArgs()}, nil
		}
		got = "tool decision"
	case *proto.HandleResponse_TurnDecision:
		if point == hooks.TurnEnd.Name {
			return kernel.TurnDecision{End: o.TurnDecision.GetEnd()}, nil
		}
		got = "turn decision"
	case *proto.HandleResponse_Compaction:
		if point == hooks.ContextCompact.Name {
			c := o.Compaction
			if c.GetFrom() < 1 || c.GetTo() < c.GetFrom() {
				return bad(fmt.Errorf("span [%d, %d] is not a valid range of events", c.GetFrom(), c.GetTo()))
			}
			return kernel.Compaction{From: c.GetFrom(), To: c.GetTo(), Summary: c.GetSummary()}, nil
		}
		got = "compaction"
	}
	return bad(fmt.Errorf("a native %s is not a result of this point", got))
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
