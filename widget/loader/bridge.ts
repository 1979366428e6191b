/**
 * Widget events for a native app hosting the chat in a webview: React Native
 * (`window.ReactNativeWebView`), iOS WKWebView (`webkit.messageHandlers.parley`) and an Android
 * JavaScript interface named `ParleyAndroid`. Each gets `{ source: 'parley', event, detail }`.
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
