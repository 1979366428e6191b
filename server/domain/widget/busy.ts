/**
 * The reply a visitor gets when the chatbot is already writing as many answers as it may at
 * once (the gateway's per-chatbot cap), per widget locale; English otherwise.
 */
const BUSY: Record<string, string> = {
  en: 'Sorry, I am answering many visitors right now. Please send your question again in a moment.',
  da: 'Beklager, jeg svarer mange besøgende lige nu. Send venligst dit spørgsmål igen om lidt.',
  de: 'Entschuldigung, ich beantworte gerade viele Anfragen. Bitte senden Sie Ihre Frage gleich noch einmal.',
  es: 'Lo siento, ahora mismo estoy atendiendo a muchos visitantes. Vuelve a enviar tu pregunta en un momento.',
  fr: 'Désolé, je réponds actuellement à de nombreux visiteurs. Veuillez renvoyer votre question dans un instant.',
  it: 'Spiacenti, sto rispondendo a molti visitatori in questo momento. Invia di nuovo la tua domanda tra poco.',
  ja: '申し訳ありません。ただいま多くのご質問に対応しています。しばらくしてからもう一度送信してください。',
  nl: 'Sorry, ik help op dit moment veel bezoekers. Stuur je vraag zo meteen nog eens.',
  pl: 'Przepraszamy, odpowiadam teraz wielu osobom. Wyślij pytanie ponownie za chwilę.',
  pt: 'Desculpe, estou a atender muitos visitantes neste momento. Envie a sua pergunta novamente daqui a pouco.',
  sv: 'Förlåt, jag svarar många besökare just nu. Skicka din fråga igen om en liten stund.',
};

export function busyMessage(settings: Record<string, unknown>): string {
  const locale = (settings.localization as { locale?: unknown } | null)?.locale;
  return (typeof locale === 'string' && BUSY[locale]) || BUSY.en;
}
