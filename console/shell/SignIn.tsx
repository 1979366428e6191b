/** The sign-in form: e-mail and password, the API's refusal said in words. */
import { useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { fill } from '../i18n/index.js';
import { firstRun, signIn } from './session.js';
import { useShellStrings } from './strings.js';

export function SignIn(props: { ended?: boolean }) {
  const t = useShellStrings();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(null);
    try {
      await signIn(String(form.get('email') ?? ''), String(form.get('password') ?? ''));
    } catch (err) {
      if (err instanceof ApiError && err.code === 'RATE_LIMITED') {
        setError(fill(t.signIn.throttled, { minutes: Math.max(1, Math.ceil((err.retryAfter ?? 60) / 60)) }));
      } else if (
        err instanceof ApiError &&
        (err.code === 'CREDENTIALS_NOT_VALID' || err.code === 'VALIDATION_FAILED')
      ) {
        setError(t.signIn.wrong);
      } else setError(fill(t.failed, { message: err instanceof Error ? err.message : String(err) }));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" class="sign-in">
      <form class="card sign-in-card" onSubmit={submit} aria-describedby="sign-in-lead">
        <h1>{t.signIn.title}</h1>
        <p id="sign-in-lead" class="muted">
          {t.signIn.lead}
        </p>
        {firstRun.value && (
          <p class="notice" role="status">
            {t.firstRun}
          </p>
        )}
        {props.ended && !error && (
          <p class="notice" role="status">
            {t.signIn.ended}
          </p>
        )}
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <label class="field">
          <span>{t.signIn.email}</span>
          <input name="email" type="email" autocomplete="username" required maxLength={320} />
        </label>
        <label class="field">
          <span>{t.signIn.password}</span>
          <input name="password" type="password" autocomplete="current-password" required maxLength={1024} />
        </label>
        <button class="primary" type="submit" disabled={busy}>
          {busy ? t.signIn.busy : t.signIn.submit}
        </button>
        <p class="muted small">{t.signIn.noPassword}</p>
      </form>
    </main>
  );
}
