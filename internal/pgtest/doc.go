// Package pgtest gives tests a PostgreSQL database of their own: a fresh
// schema in the database HELIOS_TEST_POSTGRES_URL names, dropped when the
// test ends. Without that variable the test is skipped, saying so.
// `make test-postgres` starts a throwaway server and sets it; so does CI.
package pgtest
