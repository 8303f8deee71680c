//go:build !unix

package main

import "os/exec"

// killGroupOnCancel keeps exec's default, killing only the go command: there
// are no Unix process groups here.
func killGroupOnCancel(cmd *exec.Cmd) {}
