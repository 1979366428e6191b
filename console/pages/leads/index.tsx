/**
 * The chatbot's leads (GET /chatbots/{id}/leads, every page of it): a table, newest first, and an
 * export of the same rows as a CSV file made in the browser.
 */
import { useEffect, useState } from 'preact/hooks';
import { listAll } from '../../api.js';
import { fill, formatDate, formatNumber, type Partial2, useStrings } from '../../i18n/index.js';
import type { PageProps } from '../../registry.js';
import { chatbot } from '../../shell/state.js';
import { type Lead, leadsCsv } from './csv.js';
import { en, type Strings } from './strings/en.js';
import './leads.css';

const loaders = import.meta.glob<{ default: Partial2<Strings> }>(['./strings/*.ts', '!./strings/en.ts']);
const MAX = 5000;

export default function LeadsPage({ chatbotId }: PageProps) {
  const t = useStrings(en, loaders);
  const [leads, setLeads] = useState<Lead[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    listAll<Lead>(`/chatbots/${chatbotId}/leads`, 'leads', MAX).then(setLeads, (e: Error) =>
      setError(fill(t.failed, { message: e.message })),
    );
  }, [chatbotId]);

  const download = () => {
    if (!leads) return;
    const blob = new Blob(['\ufeff', leadsCsv(leads)], { type: 'text/csv;charset=utf-8' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    const slug = (chatbot.value?.title ?? 'chatbot').replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-|-$/g, '');
    a.download = `${slug || 'chatbot'}-leads-${new Date().toISOString().slice(0, 10)}.csv`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  };

  const custom = leads ? [...new Set(leads.flatMap((l) => Object.keys(l.customFields)))].sort() : [];
  return (
    <section class="leads-page" aria-labelledby="leads-title">
      <div class="row">
        <h1 id="leads-title" class="grow">
          {t.title}
        </h1>
        <button class="primary" onClick={download} disabled={!leads || leads.length === 0}>
          {t.export}
        </button>
      </div>
      <p class="muted">{t.lead}</p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!leads && !error && <p class="loading">{t.loading}</p>}
      {leads && leads.length === 0 && <p class="empty">{t.empty}</p>}
      {leads && leads.length > 0 && (
        <>
          <p id="leads-count" class="muted small" role="status">
            {fill(t.count, { count: formatNumber(leads.length) })}
          </p>
          <div class="table-scroll" tabIndex={0} role="region" aria-labelledby="leads-count">
            <table class="leads-table">
              <thead>
                <tr>
                  <th scope="col">{t.captured}</th>
                  <th scope="col">{t.name}</th>
                  <th scope="col">{t.email}</th>
                  <th scope="col">{t.phone}</th>
                  {custom.map((k) => (
                    <th scope="col" key={k}>
                      {k}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {leads.map((l) => (
                  <tr key={l.id}>
                    <td>{formatDate(l.createdAt, { dateStyle: 'medium', timeStyle: 'short' })}</td>
                    <td>{l.name ?? '—'}</td>
                    <td>{l.email ? <a href={`mailto:${l.email}`}>{l.email}</a> : '—'}</td>
                    <td>{l.phone ?? '—'}</td>
                    {custom.map((k) => (
                      <td key={k}>{l.customFields[k] ?? '—'}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
