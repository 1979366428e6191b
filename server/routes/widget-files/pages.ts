/** HTML of the hosted chat page (values are validated by the route and escaped here). */
import { escapeHtml } from '../../http/html.js';

export function hostedChatPage(p: { chatbotId: string; nonce: string; theme: string; locale: string | null }) {
  return `<!doctype html>
<html lang="${escapeHtml(p.locale ?? 'en')}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover, interactive-widget=resizes-content">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>Chat</title>
<style nonce="${escapeHtml(p.nonce)}">html,body{margin:0;height:100%;background:Canvas}</style>
</head>
<body>
<script src="/widget.js" data-chatbot-id="${escapeHtml(p.chatbotId)}" data-mode="page" data-theme="${escapeHtml(p.theme)}"${p.locale ? ` data-locale="${escapeHtml(p.locale)}"` : ''} nonce="${escapeHtml(p.nonce)}" async></script>
</body>
</html>
`;
}
