module github.com/helios-agents/helios

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/spf13/cobra v1.10.2
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/text v0.44.0
)

require (
	github.com/fsnotify/fsnotify v1.10.1 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	go.uber.org/goleak v1.3.0 // indirect
	golang.org/x/sys v0.13.0 // indirect
)
