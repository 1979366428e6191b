import { type Kysely, sql } from 'kysely';
import type { DialectName } from './column-types.js';

/**
 * The lexical index (storage/README.md).
 *
 * SQLite: chunks_fts gains a `chatbot` column holding one token per chatbot (hex of its id), so
 * a search matches `chatbot : "<hex>" AND (...)` inside FTS5 and ranks, sorts and limits there:
 * only k rows are joined to `chunks`, and other chatbots' rows are never scored.
 * Its external content is a view adding that column; triggers keep it as before.
 *
 * PostgreSQL: the parser keeps `reply.redirect`, `request.params`, `HTTP/2`, `/v1/users` and
 * `fastify.dev` as single host/file/URL lexemes, so "reply redirect" never matched them
 * (unicode61 splits them into words). The weighted tsvector is rebuilt over the text with those
 * joiners turned into spaces.
 */
export function searchIndex(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect === 'postgres') {
        await sql`alter table chunks drop column tsv`.execute(db);
        await sql`alter table chunks add column tsv tsvector generated always as (
            setweight(to_tsvector('english', regexp_replace(title, '[./:@\\\\~]+', ' ', 'g')), 'A') ||
            setweight(to_tsvector('english', regexp_replace(heading, '[./:@\\\\~]+', ' ', 'g')), 'B') ||
            to_tsvector('english', regexp_replace(text, '[./:@\\\\~]+', ' ', 'g'))) stored`.execute(db);
        await sql`create index chunks_tsv on chunks using gin (tsv)`.execute(db);
        return;
      }
      for (const t of ['chunks_ai', 'chunks_ad', 'chunks_au']) await sql`drop trigger if exists ${sql.raw(t)}`.execute(db);
      await sql`drop table if exists chunks_fts`.execute(db);
      await sql`create view chunks_fts_content as
          select id, title, heading, text, hex(chatbot_id) as chatbot from chunks`.execute(db);
      await sql`create virtual table chunks_fts using fts5(
          title, heading, text, chatbot, content='chunks_fts_content', content_rowid='id',
          tokenize='porter unicode61 remove_diacritics 2')`.execute(db);
      await sql`create trigger chunks_ai after insert on chunks begin
          insert into chunks_fts(rowid, title, heading, text, chatbot)
          values (new.id, new.title, new.heading, new.text, hex(new.chatbot_id)); end`.execute(db);
      await sql`create trigger chunks_ad after delete on chunks begin
          insert into chunks_fts(chunks_fts, rowid, title, heading, text, chatbot)
          values ('delete', old.id, old.title, old.heading, old.text, hex(old.chatbot_id)); end`.execute(db);
      await sql`create trigger chunks_au after update on chunks begin
          insert into chunks_fts(chunks_fts, rowid, title, heading, text, chatbot)
          values ('delete', old.id, old.title, old.heading, old.text, hex(old.chatbot_id));
          insert into chunks_fts(rowid, title, heading, text, chatbot)
          values (new.id, new.title, new.heading, new.text, hex(new.chatbot_id)); end`.execute(db);
      await sql`insert into chunks_fts(chunks_fts) values ('rebuild')`.execute(db);
    },
  };
}
