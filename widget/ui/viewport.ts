/**
 * The full-screen window (the hosted page, and the floating window on a phone) follows the
 * on-screen keyboard. Android Chrome resizes the layout viewport (the hosted page asks for
 * `interactive-widget=resizes-content`, so 100dvh shrinks); iOS and webviews that only shrink the
 * visual viewport would leave the composer under the keyboard, so its height is written to
 * `--pw-vvh` on the widget's host element (CSSOM, allowed under a strict CSP). Not while
 * pinch-zoomed: then the visual viewport is small because of the zoom, not a keyboard.
 */
export function followVisualViewport(host: HTMLElement): () => void {
  const vv = window.visualViewport;
  if (!vv) return () => {};
  const update = () => {
    if (Math.abs(vv.scale - 1) < 0.01) host.style.setProperty('--pw-vvh', `${Math.round(vv.height)}px`);
    else host.style.removeProperty('--pw-vvh');
  };
  update();
  vv.addEventListener('resize', update);
  return () => {
    vv.removeEventListener('resize', update);
    host.style.removeProperty('--pw-vvh');
  };
}
