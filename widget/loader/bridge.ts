/**
 * The native bridge of a webview hosting the chat. Out: widget events for React Native
 * (`window.ReactNativeWebView`), iOS WKWebView (`webkit.messageHandlers.parley`) and an Android
 * JavaScript interface named `ParleyAndroid`, each as `{ source: 'parley', event, detail }`.
 * In (the hosted page only): host-API commands the app posts as `{ source: 'parley', command: ['open'] }`.
 */
interface NativeWindow {
  ReactNativeWebView?: { postMessage(message: string): void };
  webkit?: { messageHandlers?: { parley?: { postMessage(message: unknown): void } } };
  ParleyAndroid?: { postMessage(message: string): void };
}

export function postToNative(event: string, detail?: unknown) {
  const w = window as unknown as NativeWindow;
  const message = { source: 'parley', event, detail: detail ?? null };
  try {
    w.ReactNativeWebView?.postMessage(JSON.stringify(message));
    w.webkit?.messageHandlers?.parley?.postMessage(message);
    w.ParleyAndroid?.postMessage(JSON.stringify(message));
  } catch {
    /* a bridge that throws must not break the widget */
  }
}

/** What an app may ask; `on`/`off` carry functions (which cannot cross) and the events are posted anyway. */
const NATIVE_COMMANDS = new Set([
  'open',
  'close',
  'toggle',
  'setLocale',
  'setTheme',
  'identify',
  'setContext',
  'sendMessage',
  'reset',
]);

/**
 * Runs commands the app posts into the page. React Native's `postMessage` dispatches a message
 * event on `window` (iOS) or `document` (Android); a capturing listener on `window` sees both,
 * once. Only the app itself: a site framing the page posts with its own window as `source`.
 */
export function listenToNative(run: (command: [string, ...unknown[]]) => void) {
  window.addEventListener(
    'message',
    (e) => {
      if (e.source !== null && e.source !== window) return;
      let data: unknown = e.data;
      if (typeof data === 'string') {
        try {
          data = JSON.parse(data);
        } catch {
          return;
        }
      }
      const message = data as { source?: unknown; command?: unknown } | null;
      const command = message?.source === 'parley' ? message.command : null;
      if (!Array.isArray(command)) return;
      if (!NATIVE_COMMANDS.has(command[0] as string)) return;
      run(command as [string, ...unknown[]]);
    },
    true,
  );
}
