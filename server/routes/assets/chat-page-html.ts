/** HTML of the hosted chat page (values are validated by the route and escaped here). */
import { escapeHtml } from '../../http/html.js';
import { RTL_LANGUAGES } from '../../http/languages.js';

export function hostedChatPage(p: { chatbotId: string; nonce: string; theme: string; locale: string | null }) {
  return `<!doctype html>
<html lang="${escapeHtml(p.locale ?? 'en')}"${p.locale && RTL_LANGUAGES.includes(p.locale.toLowerCase().split('-')[0]) ? ' dir="rtl"' : ''}>
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

/** `/chat/{id}` for a chatbot visitors cannot reach: what a visitor (or an app's developer) reads, per language. */
const NOT_FOUND: Record<string, { title: string; text: string }> = {
  en: {
    title: 'Chat not found',
    text: 'There is no chat at this address. Check the link, or ask whoever gave it to you.',
  },
  da: {
    title: 'Chatten findes ikke',
    text: 'Der er ingen chat på denne adresse. Tjek linket, eller spørg den, der gav dig det.',
  },
  de: {
    title: 'Chat nicht gefunden',
    text: 'Unter dieser Adresse gibt es keinen Chat. Prüfen Sie den Link oder fragen Sie, wer ihn Ihnen gegeben hat.',
  },
  es: {
    title: 'Chat no encontrado',
    text: 'No hay ningún chat en esta dirección. Revisa el enlace o pregunta a quien te lo dio.',
  },
  fr: {
    title: 'Chat introuvable',
    text: 'Il n’y a pas de chat à cette adresse. Vérifiez le lien ou demandez à qui vous l’a donné.',
  },
  it: {
    title: 'Chat non trovata',
    text: 'Non c’è nessuna chat a questo indirizzo. Controlli il link o chieda a chi glielo ha dato.',
  },
  ja: {
    title: 'チャットが見つかりません',
    text: 'このアドレスにチャットはありません。リンクを確認するか、リンクをくれた相手に問い合わせてください。',
  },
  nl: {
    title: 'Chat niet gevonden',
    text: 'Op dit adres is geen chat. Controleer de link of vraag het aan wie hem u gaf.',
  },
  pl: {
    title: 'Nie znaleziono czatu',
    text: 'Pod tym adresem nie ma czatu. Sprawdź link lub zapytaj osobę, która go podała.',
  },
  pt: {
    title: 'Chat não encontrado',
    text: 'Não há nenhum chat neste endereço. Verifique o link ou pergunte a quem o enviou.',
  },
  sv: {
    title: 'Chatten finns inte',
    text: 'Det finns ingen chatt på den här adressen. Kontrollera länken eller fråga den som gav dig den.',
  },
  ar: { title: 'المحادثة غير موجودة', text: 'لا توجد محادثة على هذا العنوان. تحقق من الرابط أو اسأل من أعطاك إياه.' },
  he: { title: 'הצ׳אט לא נמצא', text: 'אין צ׳אט בכתובת הזו. בדקו את הקישור או שאלו את מי שנתן לכם אותו.' },
};

export const NOT_FOUND_LANGUAGES = Object.keys(NOT_FOUND);

export function chatNotFoundPage(p: { language: string; nonce: string; dir: 'ltr' | 'rtl' }) {
  const t = NOT_FOUND[p.language] ?? NOT_FOUND.en;
  return `<!doctype html>
<html lang="${escapeHtml(p.language)}" dir="${p.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<title>${escapeHtml(t.title)}</title>
<style nonce="${escapeHtml(p.nonce)}">html,body{margin:0;height:100%;background:Canvas;color:CanvasText;font:16px/1.5 system-ui,sans-serif}main{display:grid;place-content:center;min-height:100%;padding:24px;box-sizing:border-box;text-align:center}h1{font-size:20px;margin:0 0 8px}p{margin:0;max-width:32em;opacity:.8}</style>
</head>
<body>
<main><h1>${escapeHtml(t.title)}</h1><p>${escapeHtml(t.text)}</p></main>
</body>
</html>
`;
}
