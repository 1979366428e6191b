/**
 * kysely's PostgreSQL introspection, which its migrator asks whether our schema and bookkeeping
 * tables exist, reads every column of every schema and resolves each table and schema by name
 * (has_schema_privilege, pg_get_serial_sequence): a schema another app or instance drops meanwhile
 * fails our start with "schema … does not exist". Ours scans the catalogs of our own schema (the
 * first of search_path) by oid only, so nothing outside it can fail it. It lists tables without
 * their columns: the migrator asks names, and nothing else in Parley introspects.
 */
import { type DatabaseIntrospector, type Kysely, PostgresDialect, sql } from 'kysely';

export class OwnSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return ownSchemaIntrospector(db);
  }
}

function ownSchemaIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
  const introspector: DatabaseIntrospector = {
    async getSchemas() {
      const { rows } = await sql<{ name: string }>`select nspname as name from pg_catalog.pg_namespace`.execute(db);
      return rows;
    },
    async getTables() {
      const { rows } = await sql<{ name: string; schema: string; kind: string }>`
        select c.relname as name, n.nspname as schema, c.relkind as kind
        from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where n.nspname = current_schema() and c.relkind in ('r', 'p', 'v')
        order by c.relname`.execute(db);
      return rows.map((t) => ({ name: t.name, schema: t.schema, isView: t.kind === 'v', columns: [] }));
    },
    async getMetadata() {
      return { tables: await introspector.getTables() };
    },
  };
  return introspector;
}
