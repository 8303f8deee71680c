package sdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/helios-agents/helios/plugins/sdk"
)

// guard is a plugin with one tool:before handler; a real plugin's main
// calls sdk.Serve(guard{}, sdk.Config{}).
type guard struct{}

func (guard) Hooks() []sdk.Hook {
	return []sdk.Hook{sdk.ToolBefore("no-rm-rf", func(_ context.Context, in sdk.ToolBeforeIn) (sdk.ToolDecision, bool, error) {
		if in.Call.Name == "Bash" && strings.Contains(string(in.Call.Arguments), "rm -rf") {
			return sdk.ToolDecision{Deny: true, Reason: "no rm -rf"}, true, nil
		}
		return sdk.ToolDecision{}, false, nil // pass
	})}
}

// New serves a plugin in process, from its folder, as the kernel sees it:
// this is how a plugin's own tests call it.
func ExampleNew() {
	dir, err := os.MkdirTemp("", "plugin-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	doc := "---\nname: guard\ndescription: Refuses rm -rf.\n---\n"
	if err := os.WriteFile(filepath.Join(dir, "EXTENSION.md"), []byte(doc), 0o644); err != nil {
		log.Fatal(err)
	}

	s, err := sdk.New(guard{}, sdk.Config{Dir: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	d, err := s.Describe(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Name+":", d.Description, d.Mounts)

	payload := sdk.ToolBeforeIn{Call: sdk.ToolCall{Name: "Bash", Arguments: json.RawMessage(`{"command":"rm -rf /"}`)}}
	res, err := s.Handle(context.Background(), "tool:before", "no-rm-rf", payload)
	fmt.Printf("%v %+v %v\n", res.Handled, res.Value, err)
	// Output:
	// guard: Refuses rm -rf. [{tool:before no-rm-rf}]
	// true {Deny:true Reason:no rm -rf Args:[] Ask:false Stop:false StopReason:} <nil>
}
