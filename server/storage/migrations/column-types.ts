/** Column types the migrations write per dialect; frozen with them (they import no application code). */
export type DialectName = 'sqlite' | 'postgres';

/** Column type of raw bytes. */
export const blobType = (dialect: DialectName) => (dialect === 'postgres' ? 'bytea' : 'blob');

/**
 * Column type of ids. Keyset pages break created_at ties by id, so ids must sort the same on
 * both dialects: bytewise, as SQLite's BINARY does. A PostgreSQL database's default collation
 * (en_US, ICU...) would put 'a' before 'B'; "C" keeps byte order whatever the database's.
 */
export const idType = (dialect: DialectName) => (dialect === 'postgres' ? 'text collate "C"' : 'text');
