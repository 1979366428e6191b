/**
 * Webhooks: where events go (settings/webhooks: the URL, its token, the payload variant), a test
 * send, and the delivery log (GET …/webhooks/deliveries) with each delivery's status, redeliver,
 * and re-enabling a target that repeated failures disabled. The log refreshes while a delivery
 * is pending.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, patch, post } from '../../api.js';
import { fill, formatDate, type Partial2, useStrings } from '../../i18n/index.js';
import type { PageProps } from '../../registry.js';
import { can } from '../../shell/state.js';
import { en, type Strings } from './strings/en.js';
import './webhooks.css';

const loaders = import.meta.glob<{ default: Partial2<Strings> }>(['./strings/*.ts', '!./strings/en.ts']);
const EVENTS = ['message', 'escalation', 'lead'] as const;

interface Delivery {
  id: string;
  event: (typeof EVENTS)[number];
  variant: 'A' | 'B';
  target: { url: string; source: 'thread' | 'event' | 'global' | 'test' };
  status: 'pending' | 'delivered' | 'failed' | 'skipped';
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
}
interface Target {
  url: string;
  disabled: boolean;
  disabledReason: string | null;
}

export default function WebhooksPage({ chatbotId }: PageProps) {
  const t = useStrings(en, loaders);
  const [status, setStatus] = useState<{ text: string; error?: boolean } | null>(null);
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const [targets, setTargets] = useState<Target[]>([]);
  const report = (err: unknown) =>
    setStatus({
      error: true,
      text:
        err instanceof ApiError && err.code === 'WEBHOOKS_NOT_AVAILABLE'
          ? t.notInPlan
          : fill(t.failedCall, { message: err instanceof Error ? err.message : String(err) }),
    });
  const load = () =>
    Promise.all([
      get<{ deliveries: Delivery[] }>(`/chatbots/${chatbotId}/webhooks/deliveries`, { query: { limit: 50 } }),
      get<{ webhooks: { targets: Target[] } }>(`/chatbots/${chatbotId}/webhooks`),
    ]).then(([d, w]) => {
      setDeliveries(d.deliveries);
      setTargets(w.webhooks.targets);
    }, report);
  useEffect(() => void load(), [chatbotId]);
  // While a delivery waits for its attempt, look again shortly.
  const pending = deliveries?.some((d) => d.status === 'pending');
  useEffect(() => {
    if (!pending) return;
    const timer = setTimeout(() => void load(), 1500);
    return () => clearTimeout(timer);
  }, [deliveries]);

  const act = async (work: () => Promise<unknown>, done: string) => {
    try {
      await work();
      setStatus({ text: done });
      await load();
    } catch (err) {
      report(err);
    }
  };
  const writable = can('settings:write');
  const disabled = targets.filter((x) => x.disabled);

  return (
    <section class="webhooks-page" aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">{t.title}</h1>
      <p class="muted">{t.intro}</p>
      <p class={status?.error ? 'error' : 'notice'} role={status?.error ? 'alert' : 'status'} hidden={!status}>
        {status?.text}
      </p>
      {!writable && <p class="muted">{t.readOnly}</p>}
      <Destination t={t} chatbotId={chatbotId!} writable={writable} onDone={setStatus} onError={report} />
      {disabled.map((x) => (
        <div class="card disabled-target" key={x.url}>
          <p>
            <strong>{fill(t.targetDisabled, { url: x.url })}</strong> {x.disabledReason}
          </p>
          {writable && (
            <button
              onClick={() =>
                act(
                  () => post(`/chatbots/${chatbotId}/webhooks/targets/enable`, { url: x.url }),
                  fill(t.enabled, { url: x.url }),
                )
              }
            >
              {t.enable}
            </button>
          )}
        </div>
      ))}
      {writable && (
        <form
          class="card test-send"
          onSubmit={(e) => {
            e.preventDefault();
            const event = String(new FormData(e.currentTarget as HTMLFormElement).get('event'));
            void act(() => post(`/chatbots/${chatbotId}/webhooks/test`, { event }), t.testSent);
          }}
        >
          <h2>{t.testHeading}</h2>
          <div class="row">
            <label class="field">
              <span>{t.event}</span>
              <select name="event">
                {EVENTS.map((e) => (
                  <option key={e} value={e}>
                    {t[e]}
                  </option>
                ))}
              </select>
            </label>
            <button type="submit" class="primary">
              {t.sendTest}
            </button>
          </div>
        </form>
      )}
      <div class="row">
        <h2 class="grow" id="log-title">
          {t.log}
        </h2>
        <button onClick={() => void load()}>{t.refresh}</button>
      </div>
      {!deliveries && <p class="loading">{t.loading}</p>}
      {deliveries && deliveries.length === 0 && <p class="empty">{t.empty}</p>}
      {deliveries && deliveries.length > 0 && (
        <ul class="delivery-list" aria-labelledby="log-title">
          {deliveries.map((d) => (
            <li key={d.id} class="card delivery">
              <div class="row">
                <span class={`badge ${d.status}`}>{t[d.status]}</span>
                <strong>{t[d.event]}</strong>
                {d.target.source === 'test' && <span class="muted small">{t.test}</span>}
                <span class="grow muted small">
                  {formatDate(d.createdAt, { dateStyle: 'medium', timeStyle: 'medium' })}
                </span>
                {writable && d.status !== 'pending' && (
                  <button
                    onClick={() =>
                      act(() => post(`/chatbots/${chatbotId}/webhooks/deliveries/${d.id}/redeliver`), t.redelivering)
                    }
                    aria-label={`${t.redeliver}: ${t[d.event]}, ${formatDate(d.createdAt, { timeStyle: 'medium' })}`}
                  >
                    {t.redeliver}
                  </button>
                )}
              </div>
              <p class="small target">{d.target.url}</p>
              <p class="muted small">
                {fill(t.attempts, { count: d.attempts })}
                {d.lastStatus !== null && ` · ${fill(t.http, { status: d.lastStatus })}`}
                {d.lastError && ` · ${d.lastError}`}
                {d.status === 'pending' &&
                  d.nextAttemptAt &&
                  ` · ${fill(t.nextTry, { date: formatDate(d.nextAttemptAt, { timeStyle: 'medium' }) })}`}
              </p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Destination(props: {
  t: Strings;
  chatbotId: string;
  writable: boolean;
  onDone(s: { text: string }): void;
  onError(e: unknown): void;
}) {
  const { t } = props;
  const [current, setCurrent] = useState<{
    webhookUrl?: string | null;
    webhookPayloadVariant?: 'A' | 'B' | null;
  } | null>(null);
  useEffect(() => {
    get<{ settings: typeof current }>(`/chatbots/${props.chatbotId}/settings`).then(
      (d) => setCurrent(d.settings ?? {}),
      props.onError,
    );
  }, [props.chatbotId]);
  const [busy, setBusy] = useState(false);
  const [fieldError, setFieldError] = useState<string | null>(null);
  const save = async (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    const url = String(data.get('url') ?? '').trim();
    const token = String(data.get('token') ?? '');
    setBusy(true);
    setFieldError(null);
    try {
      await patch(`/chatbots/${props.chatbotId}/settings/webhooks`, {
        webhookUrl: url || null,
        webhookPayloadVariant: data.get('variant') === 'B' ? 'B' : 'A',
        ...(token && { webhookToken: token }),
      });
      props.onDone({ text: t.saved });
    } catch (err) {
      if (err instanceof ApiError && err.code === 'VALIDATION_FAILED') setFieldError(err.message);
      else props.onError(err);
    } finally {
      setBusy(false);
    }
  };
  if (!current) return <p class="loading">{t.loading}</p>;
  return (
    <form class="card destination" onSubmit={save}>
      <h2>{t.destination}</h2>
      <label class="field">
        <span>{t.url}</span>
        <input
          name="url"
          type="url"
          inputMode="url"
          placeholder="https://example.com/parley-events"
          defaultValue={current.webhookUrl ?? ''}
          disabled={!props.writable}
          aria-describedby="webhook-url-help"
          aria-invalid={fieldError ? 'true' : undefined}
        />
      </label>
      <p id="webhook-url-help" class="muted small">
        {t.urlHelp}
      </p>
      <label class="field">
        <span>{t.token}</span>
        <input
          name="token"
          type="password"
          autoComplete="off"
          placeholder={t.tokenPlaceholder}
          disabled={!props.writable}
        />
      </label>
      <fieldset class="variants">
        <legend>{t.variant}</legend>
        {(['A', 'B'] as const).map((v) => (
          <label key={v} class="choice">
            <input
              type="radio"
              name="variant"
              value={v}
              defaultChecked={(current.webhookPayloadVariant ?? 'A') === v}
              disabled={!props.writable}
            />
            <span>
              <strong>{v === 'A' ? t.variantA : t.variantB}</strong>
              <span class="muted small">{v === 'A' ? t.variantAHelp : t.variantBHelp}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {fieldError && (
        <p class="error" role="alert">
          {fieldError}
        </p>
      )}
      {props.writable && (
        <div class="actions">
          <button class="primary" type="submit" disabled={busy}>
            {t.save}
          </button>
        </div>
      )}
    </form>
  );
}
