// Package permissions implements Claude Code's permission rules (contract
// C31): allow, ask and deny lists of rules such as `Bash(npm run test:*)`,
// `Read(./.env)`, `Edit(src/**)` and `mcp__github__*`, checked deny first,
// then ask, then allow. Bash commands are parsed with a real shell parser
// (mvdan.cc/sh/v3/syntax) so that every simple command of a chain,
// substitution, subshell or wrapper is judged on its own; what cannot be
// known is unmatched.
package permissions
