/** HTML of the hosted chat page (values are validated by the route and escaped here). */
const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function hostedChatPage(p: { chatbotId: string; nonce: string; theme: string; locale: string | null }) {
  return `<!doctype html>
<html lang="${escape(p.locale ?? 'en')}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover, interactive-widget=resizes-content">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>Chat</title>
<style nonce="${escape(p.nonce)}">html,body{margin:0;height:100%;background:Canvas}</style>
</head>
<body>
<script src="/widget.js" data-chatbot-id="${escape(p.chatbotId)}" data-mode="page" data-theme="${escape(p.theme)}"${p.locale ? ` data-locale="${escape(p.locale)}"` : ''} nonce="${escape(p.nonce)}" async></script>
</body>
</html>
`;
}
