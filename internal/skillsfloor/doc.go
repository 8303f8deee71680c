// Package main is skillsfloor, the I/O floor a skills discovery is measured
// against; see main.go.
package main
