/** The console at /console: sign-in, then the shell and the page the URL names. */
import { render } from 'preact';
import { useEffect } from 'preact/hooks';
import { sessionEnded } from './api.js';
import { applyDocumentLanguage } from './i18n/index.js';
import { checkSession, user } from './shell/session.js';
import { Loading, Shell } from './shell/Shell.js';
import { SignIn } from './shell/SignIn.js';
import { Setup } from './shell/Setup.js';
import { route } from './shell/state.js';
import { startRouter } from './shell/router.js';

function Console() {
  useEffect(() => {
    checkSession().catch(() => (user.value = null));
  }, []);
  if (user.value === undefined) return <Loading />;
  // route: re-rendered when the URL changes (after the set-up, /console replaces /console/setup).
  if (!user.value && route.value && location.pathname.replace(/\/$/, '') === '/console/setup') return <Setup />;
  if (!user.value || sessionEnded.value) return <SignIn ended={sessionEnded.value} />;
  return <Shell key={user.value.id} />;
}

applyDocumentLanguage();
startRouter();
render(<Console />, document.getElementById('console')!);
