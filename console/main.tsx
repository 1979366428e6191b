/** The console at /console: sign-in, then the shell and the page the URL names. */
import { render } from 'preact';
import { useEffect } from 'preact/hooks';
import { sessionEnded } from './api.js';
import { applyDocumentLanguage } from './i18n/index.js';
import { checkSession, user } from './shell/session.js';
import { Loading, Shell } from './shell/Shell.js';
import { SignIn } from './shell/SignIn.js';
import { startRouter } from './shell/router.js';

function Console() {
  useEffect(() => {
    checkSession().catch(() => (user.value = null));
  }, []);
  if (user.value === undefined) return <Loading />;
  if (!user.value || sessionEnded.value) return <SignIn ended={sessionEnded.value} />;
  return <Shell key={user.value.id} />;
}

applyDocumentLanguage();
startRouter();
render(<Console />, document.getElementById('console')!);
