// Package mcpserver serves a kernel's live, merged skill catalog over the
// Model Context Protocol (github.com/modelcontextprotocol/go-sdk): every
// file of every skill as a skill:// resource, the Agent Skills extension
// (io.modelcontextprotocol/skills: skills/list and skills/get), the skill
// and skill_resource tools for clients that only forward tools, and one
// prompt per skill a person may invoke.
//
// The catalog is never copied into the server: names resolve against the
// kernel's catalog at call time, and each new complete catalog is announced
// with list_changed notifications, while an incomplete observation announces
// nothing and a body-only edit only tells the subscribers of that file.
// Files are read through the kernel's guarded FS (workfs) rooted at
// the skill's base directory, so no URI reaches outside it.
package mcpserver
