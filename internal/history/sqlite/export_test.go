package sqlite

import "database/sql"

// DB exposes the database to tests.
func (s *Store) DB() *sql.DB { return s.db }
