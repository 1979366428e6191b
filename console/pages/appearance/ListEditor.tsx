/**
 * A chatbot's list resource edited in place (starters, follow-ups, instructions, personas, custom
 * responses): add, edit, delete after asking, reorder where the API has a position, and "use"
 * where one of them is active. Each change is saved at once through its own route.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, del, get, listAll, patch, post } from '../../api.js';
import { fill } from '../../i18n/index.js';
import { can } from '../../shell/state.js';
import type { Strings } from './strings/en.js';

export interface Item {
  id: string;
  position?: number;
  active?: boolean;
  [field: string]: unknown;
}

type Kind = 'text' | 'textarea' | 'url' | 'flag' | 'temperature';
interface ItemField {
  name: string;
  kind: Kind;
  required?: boolean;
  max: number;
}

export interface ListKind {
  /** Path under /chatbots/{id}/ and the key of its strings (lists[...]). */
  path: 'starters' | 'followups' | 'instructions' | 'personas' | 'custom-responses';
  words: 'starters' | 'followups' | 'instructions' | 'personas' | 'customResponses';
  plural: string;
  item: string;
  scope: 'starters' | 'followups' | 'instructions' | 'personas';
  fields: ItemField[];
  /** Items have a position: shown in order, with move up and down. */
  ordered?: boolean;
  /** One item is the active one (POST …/use). */
  usable?: boolean;
  /** The list is paginated (custom responses). */
  paged?: boolean;
}

const prompt = (escalation: boolean): ItemField[] => [
  { name: 'title', kind: 'text', required: true, max: 200 },
  { name: 'description', kind: 'textarea', required: true, max: 2000 },
  { name: 'link', kind: 'url', max: 2048 },
  ...(escalation ? [{ name: 'isEscalationPrompt', kind: 'flag' as const, max: 0 }] : []),
];

export const LISTS: Record<ListKind['words'], ListKind> = {
  starters: {
    path: 'starters',
    words: 'starters',
    plural: 'starters',
    item: 'starter',
    scope: 'starters',
    fields: prompt(false),
    ordered: true,
  },
  followups: {
    path: 'followups',
    words: 'followups',
    plural: 'followups',
    item: 'followup',
    scope: 'followups',
    fields: prompt(true),
    ordered: true,
  },
  instructions: {
    path: 'instructions',
    words: 'instructions',
    plural: 'instructions',
    item: 'instruction',
    scope: 'instructions',
    fields: [
      { name: 'title', kind: 'text', required: true, max: 200 },
      { name: 'instructions', kind: 'textarea', required: true, max: 8000 },
      { name: 'temperature', kind: 'temperature', max: 0 },
      { name: 'description', kind: 'text', max: 2000 },
    ],
    usable: true,
  },
  personas: {
    path: 'personas',
    words: 'personas',
    plural: 'personas',
    item: 'persona',
    scope: 'personas',
    fields: [
      { name: 'title', kind: 'text', required: true, max: 200 },
      { name: 'instructions', kind: 'textarea', required: true, max: 8000 },
      { name: 'description', kind: 'text', max: 2000 },
    ],
    usable: true,
  },
  customResponses: {
    path: 'custom-responses',
    words: 'customResponses',
    plural: 'customResponses',
    item: 'customResponse',
    scope: 'instructions',
    fields: [
      { name: 'question', kind: 'text', required: true, max: 2000 },
      { name: 'answer', kind: 'textarea', required: true, max: 8000 },
    ],
    paged: true,
  },
};

const message = (err: unknown) =>
  err instanceof ApiError ? [err.message, err.hint].filter(Boolean).join(' — ') : String(err);

const byPosition = (a: Item, b: Item) => (a.position ?? 0) - (b.position ?? 0);

interface ListEditorProps {
  kind: ListKind;
  chatbotId: string;
  t: Strings;
  /** The list after every change (the preview shows starters and follow-ups). */
  onChange?(items: Item[]): void;
}

export function ListEditor({ kind, chatbotId, t, onChange }: ListEditorProps) {
  const words = t.lists[kind.words] as Record<string, string>;
  const base = `/chatbots/${chatbotId}/${kind.path}`;
  const [items, setItemsState] = useState<Item[] | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const writable = can(`${kind.scope}:write`);
  const deletable = can(`${kind.scope}:delete`);
  const setItems = (next: Item[]) => {
    const sorted = kind.ordered ? [...next].sort(byPosition) : next;
    setItemsState(sorted);
    onChange?.(sorted);
  };

  useEffect(() => {
    if (!can(`${kind.scope}:read`)) return;
    const load = kind.paged
      ? listAll<Item>(base, kind.plural)
      : get<Record<string, Item[]>>(base).then((d) => d[kind.plural]);
    load.then(setItems, (err) => setNote({ ok: false, text: message(err) }));
  }, [base]);

  const run = async (work: () => Promise<void>, done: string) => {
    setNote(null);
    try {
      await work();
      setNote({ ok: true, text: done });
      return true;
    } catch (err) {
      setNote({ ok: false, text: message(err) });
      return false;
    }
  };
  const reload = async () => {
    const list = kind.paged
      ? await listAll<Item>(base, kind.plural)
      : (await get<Record<string, Item[]>>(base))[kind.plural];
    setItems(list);
  };
  const create = (values: Record<string, unknown>) =>
    run(async () => {
      await post(base, values);
      await reload();
    }, t.lists.saved);
  const update = (id: string, values: Record<string, unknown>) =>
    run(async () => {
      await patch(`${base}/${id}`, values);
      await reload();
      setEditing(null);
    }, t.lists.saved);
  const remove = (id: string) =>
    run(async () => {
      await del(`${base}/${id}`, { query: { confirm: true } });
      setItems((items ?? []).filter((i) => i.id !== id));
    }, t.lists.deleted);
  const use = (id: string) =>
    run(async () => {
      await post(`${base}/${id}/use`);
      await reload();
    }, t.lists.saved);
  /** Moves an item one place and renumbers the positions that changed. */
  const move = (index: number, by: -1 | 1) =>
    run(async () => {
      const order = [...(items ?? [])];
      const [moved] = order.splice(index, 1);
      order.splice(index + by, 0, moved);
      for (const [i, item] of order.entries())
        if (item.position !== i) await patch(`${base}/${item.id}`, { position: i });
      await reload();
    }, t.lists.saved);

  const titleOf = (item: Item) => String(item[kind.fields[0].name] ?? '');
  return (
    <section class="ap-list" aria-labelledby={`ap-list-${kind.path}`}>
      <h3 id={`ap-list-${kind.path}`}>{words.heading}</h3>
      <p class="ap-help">{words.help}</p>
      {items && !items.length && <p class="muted small">{t.lists.empty}</p>}
      <ul>
        {items?.map((item, i) => (
          <li key={item.id} class="ap-item">
            {editing === item.id ? (
              <ItemForm
                kind={kind}
                t={t}
                initial={item}
                onSave={(values) => update(item.id, values)}
                onCancel={() => setEditing(null)}
              />
            ) : (
              <>
                <div class="ap-item-text">
                  <strong>{titleOf(item)}</strong>
                  {item.active && <span class="ap-badge">{t.lists.active}</span>}
                  {item.isEscalationPrompt === true && <span class="ap-badge">{t.lists.escalationBadge}</span>}
                  <span class="muted small">{String(item[kind.fields[1].name] ?? '')}</span>
                </div>
                <div class="actions">
                  {kind.ordered && writable && (
                    <>
                      <button
                        type="button"
                        class="ap-icon-button"
                        disabled={i === 0}
                        aria-label={`${t.lists.up}: ${titleOf(item)}`}
                        onClick={() => move(i, -1)}
                      >
                        ↑
                      </button>
                      <button
                        type="button"
                        class="ap-icon-button"
                        disabled={i === items.length - 1}
                        aria-label={`${t.lists.down}: ${titleOf(item)}`}
                        onClick={() => move(i, 1)}
                      >
                        ↓
                      </button>
                    </>
                  )}
                  {kind.usable && writable && !item.active && (
                    <button type="button" onClick={() => use(item.id)}>
                      {t.lists.use}
                    </button>
                  )}
                  {writable && (
                    <button
                      type="button"
                      aria-label={`${t.lists.edit}: ${titleOf(item)}`}
                      onClick={() => setEditing(item.id)}
                    >
                      {t.lists.edit}
                    </button>
                  )}
                  {deletable && (
                    <AskFirst
                      label={t.lists.remove}
                      name={`${t.lists.remove}: ${titleOf(item)}`}
                      question={fill(t.lists.removeQ, { title: titleOf(item) })}
                      yes={t.lists.yes}
                      keep={t.lists.keep}
                      onYes={() => remove(item.id)}
                    />
                  )}
                </div>
              </>
            )}
          </li>
        ))}
      </ul>
      {writable ? (
        <details class="ap-add">
          <summary>
            {t.lists.add}: {words.heading}
          </summary>
          <ItemForm kind={kind} t={t} onSave={create} />
        </details>
      ) : (
        items && <p class="muted small">{t.lists.readOnly}</p>
      )}
      <div role="status">{note && <p class={note.ok ? 'notice' : 'error'}>{note.text}</p>}</div>
    </section>
  );
}

/** The fields of one item; a new item's form empties itself once saved. */
function ItemForm(props: {
  kind: ListKind;
  t: Strings;
  initial?: Item;
  onSave(values: Record<string, unknown>): Promise<boolean>;
  onCancel?(): void;
}) {
  const { kind, t } = props;
  const words = t.lists[kind.words] as Record<string, string>;
  const blank = () =>
    Object.fromEntries(
      kind.fields.map((f) => [f.name, props.initial?.[f.name] ?? (f.kind === 'flag' ? false : null)]),
    ) as Record<string, unknown>;
  const [values, setValues] = useState(blank);
  const [busy, setBusy] = useState(false);
  const uid = useRef(`${kind.path}-${props.initial?.id ?? 'new'}`).current;
  const set = (name: string, v: unknown) => setValues({ ...values, [name]: v });
  const label = (f: ItemField) =>
    f.kind === 'url'
      ? t.lists.linkField
      : f.kind === 'flag'
        ? t.lists.escalation
        : f.kind === 'temperature'
          ? t.lists.temperatureField
          : words[f.name];
  const ready = kind.fields.every((f) => !f.required || String(values[f.name] ?? '').trim());
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!ready) return;
    setBusy(true);
    // Empty optional text is sent as its empty value: null for a link or temperature, '' for a note.
    const body = Object.fromEntries(
      kind.fields.map((f) => {
        const v = values[f.name];
        if (f.kind === 'flag') return [f.name, v === true];
        if (f.kind === 'temperature') return [f.name, v === null || v === '' ? null : Number(v)];
        const s = String(v ?? '').trim();
        return [f.name, s || (f.kind === 'url' ? null : '')];
      }),
    );
    if (!props.initial)
      for (const f of kind.fields)
        if (!f.required && (body[f.name] === null || body[f.name] === '')) delete body[f.name];
    const ok = await props.onSave(body);
    setBusy(false);
    if (ok && !props.initial) setValues(blank());
  };
  return (
    <form class="ap-item-form" onSubmit={submit}>
      {kind.fields.map((f) => {
        const id = `${uid}-${f.name}`;
        const v = values[f.name];
        if (f.kind === 'flag')
          return (
            <label class="ap-check" for={id}>
              <input
                id={id}
                type="checkbox"
                checked={v === true}
                onChange={(e) => set(f.name, (e.currentTarget as HTMLInputElement).checked)}
              />
              <span>{label(f)}</span>
            </label>
          );
        const common = {
          id,
          value: v === null || v === undefined ? '' : String(v),
          required: f.required,
          onInput: (e: Event) => set(f.name, (e.currentTarget as HTMLInputElement).value),
        };
        return (
          <label class="field" for={id}>
            <span>{label(f)}</span>
            {f.kind === 'textarea' ? (
              <textarea rows={3} maxLength={f.max} {...common} />
            ) : f.kind === 'temperature' ? (
              <input type="number" min={0} max={1} step={0.01} {...common} />
            ) : (
              <input type={f.kind === 'url' ? 'url' : 'text'} maxLength={f.max} {...common} />
            )}
          </label>
        );
      })}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy || !ready}>
          {props.initial ? t.lists.save : t.lists.add}
        </button>
        {props.onCancel && (
          <button type="button" onClick={props.onCancel}>
            {t.lists.cancel}
          </button>
        )}
      </div>
    </form>
  );
}

/** A delete button that asks in place first. */
export function AskFirst(props: {
  label: string;
  name?: string;
  question: string;
  yes: string;
  keep: string;
  onYes(): void | Promise<unknown>;
}) {
  const [asking, setAsking] = useState(false);
  const keep = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) keep.current?.focus();
  }, [asking]);
  if (!asking)
    return (
      <button type="button" class="danger" aria-label={props.name} onClick={() => setAsking(true)}>
        {props.label}
      </button>
    );
  return (
    <span class="ap-ask" role="group" aria-label={props.question}>
      <span>{props.question}</span>
      <button
        type="button"
        class="danger"
        onClick={async () => {
          await props.onYes();
          setAsking(false);
        }}
      >
        {props.yes}
      </button>
      <button type="button" ref={keep} onClick={() => setAsking(false)}>
        {props.keep}
      </button>
    </span>
  );
}
