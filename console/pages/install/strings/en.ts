export const en = {
  title: 'Install',
  intro: 'Put the chatbot on your site, in your app, and let it know who your signed-in users are.',
  snippetHeading: 'Add it to your site',
  snippetText: 'Paste this once on every page where the chat bubble should appear, just before </body>.',
  html: 'Plain HTML',
  variant: 'Code for',
  copy: 'Copy',
  copied: 'Copied.',
  checkHeading: 'Check my site',
  checkText:
    'We load the page from the server and look for the snippet. A snippet added by JavaScript after the page loads (React, Vue) is not seen here: open the page and look for the bubble.',
  pageUrl: 'Page address',
  check: 'Check my site',
  checking: 'Checking…',
  found: 'The chatbot is installed on {url}.',
  notFound: 'No snippet for this chatbot on {url}. Paste the snippet above into that page and check again.',
  otherBot: '{url} carries a snippet for another chatbot. Replace it with the snippet above.',
  unreadable: '{url} could not be read: {reason}',
  failed: 'The check did not work: {message}',
  mobileHeading: 'Mobile apps',
  mobileText: 'Open this address in a webview: it is the chat on a page of its own.',
  identityHeading: 'Identity verification',
  identityText:
    'Let signed-in users be recognised on every device without an e-mail code: your server signs their e-mail with the chatbot’s identity secret (HMAC-SHA256, hex), and the page passes both to the widget.',
  identifyText: 'Then, on pages where the user is signed in:',
  identifyLabel: 'identify call',
};

export type Strings = typeof en;
