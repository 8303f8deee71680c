// Package catalog is what the model sees of a skills catalog: the catalog
// message, rendered within a character budget (Render, contract C13), and,
// in tools mode, the list of skill tools the budget keeps (ViewOf).
//
// One deterministic rule decides the message: the skills in catalog order
// (skills.Order: pinned, then project, recent, user and capability skills,
// then by name); full lines when everything fits, else shortened
// descriptions when every name fits, else names until the budget is spent
// and a note saying how many more exist. The frame around the lines (its
// sentence and tags) lives in the catalog_*.md files beside this package.
//
// The package reads skills; it never reads a file or a registry.
package catalog
