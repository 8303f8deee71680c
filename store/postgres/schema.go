package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// migrations holds the schema, one file per version: NNNN_name.sql brings
// the schema from version NNNN-1 to NNNN.
//
//go:embed migrations/*.sql
var migrations embed.FS

// schemaLockKey serializes migrations in a database (a transaction-level
// advisory lock): "helios-schema" in ASCII.
const schemaLockKey = 0x68656c696f73

// migrate brings the schema up to the newest version this Helios knows, in
// one transaction, and learns the writer locks' key space. A schema newer
// than that is refused.
func (s *Store) migrate(ctx context.Context) error {
	steps, err := migrationSteps()
	if err != nil {
		return err
	}
	latest := len(steps)
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(schemaLockKey)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS helios_schema (version integer NOT NULL)`); err != nil {
			return fmt.Errorf("create schema table: %w", err)
		}
		var version int
		err := tx.QueryRow(ctx, `SELECT version FROM helios_schema`).Scan(&version)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			if _, err := tx.Exec(ctx, `INSERT INTO helios_schema (version) VALUES (0)`); err != nil {
				return err
			}
		case err != nil:
			return fmt.Errorf("read schema version: %w", err)
		}
		if version > latest {
			return fmt.Errorf("the database's session schema is version %d, newer than this Helios knows (version %d): upgrade Helios", version, latest)
		}
		for v := version + 1; v <= latest; v++ {
			if _, err := tx.Exec(ctx, steps[v-1]); err != nil {
				return fmt.Errorf("migrate the session schema to version %d: %w", v, err)
			}
		}
		if version < latest {
			if _, err := tx.Exec(ctx, `UPDATE helios_schema SET version = $1`, latest); err != nil {
				return err
			}
		}
		return tx.QueryRow(ctx, `SELECT 'helios_sessions'::regclass::oid`).Scan(&s.lockSpace)
	})
}

// migrationSteps returns the migration files' SQL, index i bringing the
// schema to version i+1; their numbers must run 1, 2, 3... without a gap.
func migrationSteps() ([]string, error) {
	entries, err := fs.ReadDir(migrations, "migrations")
	if err != nil {
		return nil, err
	}
	var steps []string
	for i, e := range entries { // ReadDir sorts by name
		num, _, _ := strings.Cut(e.Name(), "_")
		if n, err := strconv.Atoi(num); err != nil || n != i+1 {
			return nil, fmt.Errorf("migration %s: want number %04d", e.Name(), i+1)
		}
		b, err := migrations.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		steps = append(steps, string(b))
	}
	return steps, nil
}
