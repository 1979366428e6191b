/**
 * First run (/console/setup#<token>): the owner chooses their password with the link the server
 * printed at start (POST /session/setup), and is signed in.
 */
import { useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { fill } from '../i18n/index.js';
import { navigate } from './router.js';
import { completeSetup } from './session.js';
import { useShellStrings } from './strings.js';

const MIN_LENGTH = 10;

export function Setup() {
  const t = useShellStrings();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ text: string; dead?: boolean } | null>(null);
  const token = location.hash.slice(1);

  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const password = String(form.get('password') ?? '');
    if (password !== String(form.get('repeat') ?? '')) return setError({ text: t.setup.mismatch });
    setBusy(true);
    setError(null);
    try {
      await completeSetup(token, password);
      navigate('/console', { replace: true });
    } catch (err) {
      if (err instanceof ApiError && err.code === 'SETUP_LINK_NOT_VALID')
        setError({ text: t.setup.invalid, dead: true });
      else if (err instanceof ApiError && err.code === 'VALIDATION_FAILED') setError({ text: err.message });
      else setError({ text: fill(t.failed, { message: err instanceof Error ? err.message : String(err) }) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" class="sign-in">
      <form class="card sign-in-card" onSubmit={submit} aria-describedby="setup-lead">
        <h1>{t.setup.title}</h1>
        <p id="setup-lead" class="muted">
          {t.setup.lead}
        </p>
        {error && (
          <p class="error" role="alert">
            {error.text}
          </p>
        )}
        {error?.dead ? (
          <a href="/console" onClick={() => history.replaceState(null, '', '/console')}>
            {t.setup.toSignIn}
          </a>
        ) : (
          <>
            <label class="field">
              <span>{t.setup.password}</span>
              <input
                name="password"
                type="password"
                autocomplete="new-password"
                required
                minLength={MIN_LENGTH}
                maxLength={1024}
                aria-describedby="setup-hint"
              />
            </label>
            <p id="setup-hint" class="muted small">
              {t.setup.hint}
            </p>
            <label class="field">
              <span>{t.setup.repeat}</span>
              <input name="repeat" type="password" autocomplete="new-password" required maxLength={1024} />
            </label>
            <button class="primary" type="submit" disabled={busy}>
              {busy ? t.setup.busy : t.setup.submit}
            </button>
          </>
        )}
      </form>
    </main>
  );
}
