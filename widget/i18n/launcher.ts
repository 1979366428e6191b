/**
 * The text widget.js writes before the chat chunk is loaded (the bubble's label with its unread
 * count, the tooltip and its dismiss button), in every language. A few hundred bytes in the first script, so a German
 * page gets a German tooltip without fetching the German chunk. The chat chunk reads the welcome
 * message from here too: one copy of each text.
 */
export interface LauncherText {
  openChat: string;
  /** The bubble's label while the window is open (it closes it then). */
  closeChat: string;
  dismissTooltip: string;
  /** Shown when the chatbot's welcome message is still the untouched default (and as the tooltip then). */
  welcome: string;
  /** Added to the bubble's label while messages are unread (`{n}` the count), for screen readers. */
  unread: string;
}

const TEXT: Record<string, LauncherText> = {
  en: {
    openChat: 'Open chat',
    closeChat: 'Close chat',
    dismissTooltip: 'Dismiss',
    welcome: 'Hi! How can I help you today?',
    unread: '{n} unread',
  },
  da: {
    openChat: 'Åbn chat',
    closeChat: 'Luk chat',
    dismissTooltip: 'Skjul',
    welcome: 'Hej! Hvordan kan jeg hjælpe dig i dag?',
    unread: '{n} ulæste',
  },
  de: {
    openChat: 'Chat öffnen',
    closeChat: 'Chat schließen',
    dismissTooltip: 'Ausblenden',
    welcome: 'Hallo! Wie kann ich Ihnen heute helfen?',
    unread: '{n} ungelesen',
  },
  es: {
    openChat: 'Abrir chat',
    closeChat: 'Cerrar chat',
    dismissTooltip: 'Descartar',
    welcome: '¡Hola! ¿En qué puedo ayudarte hoy?',
    unread: '{n} sin leer',
  },
  fr: {
    openChat: 'Ouvrir le chat',
    closeChat: 'Fermer le chat',
    dismissTooltip: 'Masquer',
    welcome: 'Bonjour ! Comment puis-je vous aider aujourd’hui ?',
    unread: '{n} non lus',
  },
  it: {
    openChat: 'Apri la chat',
    closeChat: 'Chiudi la chat',
    dismissTooltip: 'Nascondi',
    welcome: 'Buongiorno! Come posso aiutarla oggi?',
    unread: '{n} non letti',
  },
  ja: {
    openChat: 'チャットを開く',
    closeChat: 'チャットを閉じる',
    dismissTooltip: '閉じる',
    welcome: 'こんにちは！ご用件をお聞かせください。',
    unread: '未読 {n} 件',
  },
  nl: {
    openChat: 'Chat openen',
    closeChat: 'Chat sluiten',
    dismissTooltip: 'Verbergen',
    welcome: 'Hallo! Waarmee kan ik u vandaag helpen?',
    unread: '{n} ongelezen',
  },
  pl: {
    openChat: 'Otwórz czat',
    closeChat: 'Zamknij czat',
    dismissTooltip: 'Ukryj',
    welcome: 'Dzień dobry! W czym mogę dziś pomóc?',
    unread: 'Nieprzeczytane: {n}',
  },
  pt: {
    openChat: 'Abrir chat',
    closeChat: 'Fechar chat',
    dismissTooltip: 'Ocultar',
    welcome: 'Olá! Como posso ajudar você hoje?',
    unread: '{n} não lidas',
  },
  sv: {
    openChat: 'Öppna chatten',
    closeChat: 'Stäng chatten',
    dismissTooltip: 'Dölj',
    welcome: 'Hej! Hur kan jag hjälpa dig i dag?',
    unread: '{n} olästa',
  },
  ar: {
    openChat: 'فتح المحادثة',
    closeChat: 'إغلاق المحادثة',
    dismissTooltip: 'إخفاء',
    welcome: 'مرحبًا! كيف يمكنني مساعدتك اليوم؟',
    unread: '{n} غير مقروءة',
  },
  he: {
    openChat: 'פתיחת הצ׳אט',
    closeChat: 'סגירת הצ׳אט',
    dismissTooltip: 'הסתרה',
    welcome: 'שלום! איך אפשר לעזור היום?',
    unread: '{n} שלא נקראו',
  },
};

/** A language tag's base language (`de-CH` -> `de`). */
export const baseLanguage = (locale: string) => locale.toLowerCase().split(/[-_]/)[0];

/** Whether a locale's language is written right to left (the window then lays out right to left). */
export const isRtl = (locale: string) => /^(ar|he)$/.test(baseLanguage(locale));

/** The languages the widget has text for (the chunks of ./locales.ts and English). */
export const LANGUAGES = Object.keys(TEXT);

export const launcherText = (locale: string): LauncherText => TEXT[baseLanguage(locale)] ?? TEXT.en;
