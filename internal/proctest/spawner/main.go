// Command spawner is a test plugin (for the process-tree tests of
// plugins/host and test/unit) with children of its own: it starts
// `sleep $SPAWNER_SLEEP` when it starts and again at each call of its spawn
// tool, and appends each child's pid to $SPAWNER_DIR/pids. It never waits
// for them, as a careless plugin would not.
//
// $SPAWNER_FAIL makes it fail its start after starting the sleep:
// "handshake" writes a line that is not go-plugin's handshake and exits,
// "hang" never answers (the host's start timeout ends it).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/helios-agents/helios/kernel/contract"
	"github.com/helios-agents/helios/plugins/sdk"
)

func main() {
	if err := spawn(); err != nil {
		fmt.Fprintln(os.Stderr, "spawn:", err)
		os.Exit(1)
	}
	switch os.Getenv("SPAWNER_FAIL") {
	case "handshake":
		fmt.Println("this is not a handshake")
		os.Exit(1)
	case "hang":
		for {
			time.Sleep(time.Hour)
		}
	}
	sdk.Serve(spawner{}, sdk.Config{})
}

type spawner struct{}

func (spawner) Hooks() []sdk.Hook { return nil }

func (spawner) Tools() []contract.Tool {
	return []contract.Tool{{
		Name:        "spawn",
		Description: "Starts one more long sleep.",
		Schema:      json.RawMessage(`{"type":"object"}`),
		Call: func(context.Context, json.RawMessage) (contract.ToolResult, error) {
			if err := spawn(); err != nil {
				return contract.ToolResult{}, err
			}
			return contract.ToolResult{Content: "spawned"}, nil
		},
	}}
}

func spawn() error {
	cmd := exec.Command("sleep", os.Getenv("SPAWNER_SLEEP"))
	if err := cmd.Start(); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(os.Getenv("SPAWNER_DIR"), "pids"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString(strconv.Itoa(cmd.Process.Pid) + "\n")
	return err
}
