/** The visitor's account: verify an e-mail with a one-time code, see who is verified, log out. */
import { useEffect, useState } from 'preact/hooks';
import type { ChatModel } from '../state/chat.js';
import { fill } from '../i18n/locales.js';

export function Account({ model }: { model: ChatModel }) {
  const s = model.i18n.strings.value.chatAccount;
  const visitor = model.account.visitor.value;
  const otp = model.account.otp.value;
  const { collectUserData } = model.config.userData;
  const [details, setDetails] = useState({
    email: otp.email || visitor?.email || '',
    name: otp.name || visitor?.name || '',
    phone: otp.phone || visitor?.phone || '',
  });
  const [code, setCode] = useState('');
  const [now, setNow] = useState(Date.now());
  const [loggingOut, setLoggingOut] = useState(false);
  useEffect(() => {
    if (otp.stage !== 'code' || otp.resendAt <= now) return;
    const t = setTimeout(() => setNow(Date.now()), 1000);
    return () => clearTimeout(t);
  }, [otp.stage, otp.resendAt, now]);

  if (visitor?.verified) {
    return (
      <section class="account" aria-labelledby="acc-h">
        <h2 id="acc-h">{s.account}</h2>
        <p class="verified">
          <span class="verified-badge">{s.verified}</span> {visitor.email}
        </p>
        {visitor.name && <p>{visitor.name}</p>}
        <button
          type="button"
          class="secondary"
          disabled={loggingOut}
          onClick={() => {
            setLoggingOut(true);
            model.account.logout();
          }}
        >
          {loggingOut ? s.loggingOut : s.logout}
        </button>
      </section>
    );
  }

  if (otp.stage === 'code') {
    const wait = Math.max(0, Math.ceil((otp.resendAt - Date.now()) / 1000));
    return (
      <section class="account" aria-labelledby="acc-h">
        <h2 id="acc-h">{s.verifyOtp}</h2>
        <p>
          {s.sentOtpToEmail} <strong>{otp.email}</strong>
        </p>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            model.account.verifyOtp(code);
          }}
        >
          <label>
            {s.otp}
            <input
              name="otp"
              inputMode="numeric"
              autoComplete="one-time-code"
              required
              value={code}
              onInput={(e) => setCode((e.target as HTMLInputElement).value)}
            />
          </label>
          <Submit error={otp.error} busy={otp.busy} label={otp.busy ? s.verifying : s.verifyAndContinue} />
        </form>
        <p class="resend">
          {s.notReceivedOtpYet}{' '}
          <button type="button" class="link" disabled={wait > 0} onClick={() => model.account.requestOtp(details)}>
            {wait > 0 ? fill(model.i18n.strings.value.ui.resendIn, { s: wait }) : s.resend}
          </button>
        </p>
        <button type="button" class="link" onClick={() => model.account.editOtpDetails()}>
          {s.editDetails}
        </button>
      </section>
    );
  }

  const set = (key: 'email' | 'name' | 'phone') => (e: Event) =>
    setDetails({ ...details, [key]: (e.target as HTMLInputElement).value });
  return (
    <section class="account" aria-labelledby="acc-h">
      <h2 id="acc-h">{s.verifyEmail}</h2>
      <p>{s.loginToSeeHistory}</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          model.account.requestOtp(details);
        }}
      >
        <label>
          {s.emailLabel}
          <input type="email" name="email" required autoComplete="email" value={details.email} onInput={set('email')} />
        </label>
        {collectUserData.name && (
          <label>
            {s.nameLabel}
            <input name="name" autoComplete="name" value={details.name} onInput={set('name')} />
          </label>
        )}
        {collectUserData.phone && (
          <label>
            {s.phoneLabel}
            <input type="tel" name="phone" autoComplete="tel" value={details.phone} onInput={set('phone')} />
          </label>
        )}
        <Submit error={otp.error} busy={otp.busy} label={otp.busy ? s.sendingOtp : s.submit} />
      </form>
    </section>
  );
}

/** A form's last lines: the error of its last try, then its submit button (disabled while it runs). */
function Submit({ error, busy, label }: { error: string | null; busy: boolean; label: string }) {
  return (
    <>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" class="primary" disabled={busy}>
        {label}
      </button>
    </>
  );
}
