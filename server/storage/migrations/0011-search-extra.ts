import { type Kysely, sql } from 'kysely';
import { chunkExtraTokens } from './frozen/search-terms-0011.js';
import type { DialectName } from './column-types.js';

const BATCH = 1000;

/**
 * SQLite: a fifth chunks_fts column, `extra`, indexes tokens made from the chunk's words
 * (search-terms.ts): adjacent word pairs (`routeǂhandler`) and the words of its title and
 * headings (`ǂroute`). A phrase ("route handler") intersects the doclists of two common words on
 * every search and FTS5 counts its rows again to weigh it; a pair token is one short doclist and
 * its row count is in fts5vocab. Head tokens let
 * a search take a common word's best rows without walking all of them (dialects/sqlite/search.ts).
 * `chunks.extra` holds the tokens (the repository writes them with the chunk) and the
 * external-content view exposes them. Existing chunks are filled in here, then the index is rebuilt.
 *
 * PostgreSQL ranks words one by one (chunks.repository.ts) and has no pairs: nothing to do.
 */
export function searchExtraTokens(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect === 'postgres') return;
      for (const t of ['chunks_ai', 'chunks_ad', 'chunks_au']) await sql`drop trigger if exists ${sql.raw(t)}`.execute(db);
      await sql`drop table if exists chunks_fts`.execute(db);
      await sql`drop view if exists chunks_fts_content`.execute(db);
      await sql`alter table chunks add column extra text not null default ''`.execute(db);
      for (let after = 0; ; ) {
        const { rows } = await sql<{ id: number; title: string; heading: string; text: string }>`
          select id, title, heading, text from chunks where id > ${after} order by id limit ${BATCH}`.execute(db);
        if (!rows.length) break;
        for (const r of rows) {
          const extra = chunkExtraTokens({ title: r.title, headingPath: r.heading ? r.heading.split(' > ') : [], text: r.text });
          await sql`update chunks set extra = ${extra} where id = ${r.id}`.execute(db);
        }
        after = Number(rows[rows.length - 1].id);
      }
      await sql`create view chunks_fts_content as
          select id, title, heading, text, hex(chatbot_id) as chatbot, extra from chunks`.execute(db);
      await sql`create virtual table chunks_fts using fts5(
          title, heading, text, chatbot, extra, content='chunks_fts_content', content_rowid='id',
          tokenize='porter unicode61 remove_diacritics 2')`.execute(db);
      await sql`create trigger chunks_ai after insert on chunks begin
          insert into chunks_fts(rowid, title, heading, text, chatbot, extra)
          values (new.id, new.title, new.heading, new.text, hex(new.chatbot_id), new.extra); end`.execute(db);
      await sql`create trigger chunks_ad after delete on chunks begin
          insert into chunks_fts(chunks_fts, rowid, title, heading, text, chatbot, extra)
          values ('delete', old.id, old.title, old.heading, old.text, hex(old.chatbot_id), old.extra); end`.execute(db);
      await sql`create trigger chunks_au after update on chunks begin
          insert into chunks_fts(chunks_fts, rowid, title, heading, text, chatbot, extra)
          values ('delete', old.id, old.title, old.heading, old.text, hex(old.chatbot_id), old.extra);
          insert into chunks_fts(rowid, title, heading, text, chatbot, extra)
          values (new.id, new.title, new.heading, new.text, hex(new.chatbot_id), new.extra); end`.execute(db);
      await sql`insert into chunks_fts(chunks_fts) values ('rebuild')`.execute(db);
    },
  };
}
