/**
 * One stylesheet per part, adopted into the shadow root (no inline style, so a strict CSP
 * without 'unsafe-inline' allows it). Browsers without constructable stylesheets get a
 * `<style nonce>` with the nonce of the widget's own script tag.
 */
export function adoptStyles(root: ShadowRoot, css: string, nonce: string) {
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  } catch {
    const style = document.createElement('style');
    if (nonce) style.nonce = nonce;
    style.textContent = css;
    root.prepend(style);
  }
}
