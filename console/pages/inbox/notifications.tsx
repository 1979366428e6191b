/**
 * Browser notifications of new escalations, only once the member asked for them (the permission
 * prompt comes from their click, never on load) and only while the inbox's tab is not in front.
 */
import { useState } from 'preact/hooks';
import { useInboxStrings } from './strings.js';

const supported = () => typeof Notification !== 'undefined';

export function notifyEscalation(text: string, tag: string) {
  if (!supported() || Notification.permission !== 'granted' || !document.hidden) return;
  const n = new Notification(text, { tag: `parley-escalation-${tag}` });
  n.onclick = () => window.focus();
}

export function Notifications() {
  const t = useInboxStrings();
  const [permission, setPermission] = useState(supported() ? Notification.permission : 'denied');
  if (!supported()) return null;
  if (permission === 'granted') return <p class="muted small">{t.notifyOn}</p>;
  if (permission === 'denied') return <p class="muted small">{t.notifyBlocked}</p>;
  return (
    <button
      type="button"
      class="inbox-notify"
      onClick={() => void Notification.requestPermission().then(setPermission)}
    >
      {t.notify}
    </button>
  );
}
