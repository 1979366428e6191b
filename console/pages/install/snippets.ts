/** The code a site owner pastes: the widget snippet and its framework forms, and the identity signature. */

export const scriptTag = (origin: string, id: string) =>
  `<script src="${origin}/widget.js" data-chatbot-id="${id}" fetchpriority="high" async></script>`;

export const reactSnippet = (origin: string, id: string) => `import { useEffect } from 'react';

// Render <ParleyWidget /> once, e.g. in your root layout.
export function ParleyWidget() {
  useEffect(() => {
    if (document.querySelector('script[data-chatbot-id="${id}"]')) return;
    const s = document.createElement('script');
    s.src = '${origin}/widget.js';
    s.async = true;
    s.dataset.chatbotId = '${id}';
    document.body.appendChild(s);
  }, []);
  return null;
}`;

export const vueSnippet = (origin: string, id: string) => `<!-- ParleyWidget.vue: use it once, e.g. in App.vue -->
<script setup>
import { onMounted } from 'vue';

onMounted(() => {
  if (document.querySelector('script[data-chatbot-id="${id}"]')) return;
  const s = document.createElement('script');
  s.src = '${origin}/widget.js';
  s.async = true;
  s.dataset.chatbotId = '${id}';
  document.body.appendChild(s);
});
</script>

<template></template>`;

/** hex HMAC-SHA256 of the e-mail, keyed with the identity secret: the server's rule (widget/README.md). */
export const identityNode = `const { createHmac } = require('node:crypto');

// On your server only: the secret never goes to the browser.
function parleySignature(email) {
  return createHmac('sha256', process.env.PARLEY_IDENTITY_SECRET).update(email, 'utf8').digest('hex');
}`;

export const identityPhp = `<?php
// On your server only: the secret never goes to the browser.
function parley_signature(string $email): string {
    return hash_hmac('sha256', $email, getenv('PARLEY_IDENTITY_SECRET'));
}`;

export const identityPython = `import hashlib, hmac, os

# On your server only: the secret never goes to the browser.
def parley_signature(email: str) -> str:
    secret = os.environ["PARLEY_IDENTITY_SECRET"].encode("utf-8")
    return hmac.new(secret, email.encode("utf-8"), hashlib.sha256).hexdigest()`;

export const identifyCall = `<script>
  window.parley = window.parley || [];
  // email and signature come from your server for the signed-in user.
  parley.push(['identify', { email: USER_EMAIL, signature: USER_SIGNATURE }]);
</script>`;
