package otelsetup

import (
	"context"
	"fmt"
	"os"
	"sync"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// fileClient is the file exporter's transport: each ResourceSpans the OTLP
// exporter hands over becomes one line of OTLP/JSON, wrapped as TracesData
// ({"resourceSpans":[...]}) as the OpenTelemetry Collector's file exporter
// writes it, so its otlpjsonfile receiver and any OTLP/JSON reader can read
// the file. The kernel and its plugins append to the same file; each line
// is one write on a file opened for appending, so their lines never
// interleave.
type fileClient struct {
	path string
	mu   sync.Mutex
	f    *os.File
}

func (c *fileClient) Start(context.Context) error {
	f, err := os.OpenFile(c.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("file exporter: %w", err)
	}
	c.mu.Lock()
	c.f = f
	c.mu.Unlock()
	return nil
}

func (c *fileClient) Stop(context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return nil
	}
	err := c.f.Close()
	c.f = nil
	return err
}

func (c *fileClient) UploadTraces(_ context.Context, spans []*tracepb.ResourceSpans) error {
	var buf []byte
	for _, rs := range spans {
		line, err := protojson.MarshalOptions{}.Marshal(&tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{rs}})
		if err != nil {
			return fmt.Errorf("file exporter: %w", err)
		}
		buf = append(append(buf, line...), '\n')
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return fmt.Errorf("file exporter: %s is closed", c.path)
	}
	_, err := c.f.Write(buf)
	return err
}
