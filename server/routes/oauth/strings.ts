/**
 * The verification page's text, per locale: the widget's languages (widget/i18n), English as the
 * fallback. English and German are here, the others in translations.ts.
 */
import { da, es, fr, it, ja, nl, pl, pt, sv } from './translations.js';

export const LOCALES = ['en', 'da', 'de', 'es', 'fr', 'it', 'ja', 'nl', 'pl', 'pt', 'sv'] as const;
export type Locale = (typeof LOCALES)[number];

const en = {
  title: 'Sign in a device',
  signInHeading: 'Sign in to approve a device',
  signInIntro: 'A command-line tool or agent asked to act on your Parley account. Sign in first.',
  email: 'E-mail',
  password: 'Password',
  signIn: 'Sign in',
  signOut: 'Sign out',
  signedInAs: 'Signed in as {email}.',
  wrongPassword: 'The e-mail or the password is not right.',
  throttled: 'Too many tries. Try again in {minutes} min.',
  codeHeading: 'Enter the code shown on your device',
  codeLabel: 'Code',
  codeHint: '8 letters, for example BCDF-GHJK. Upper or lower case, with or without the dash.',
  continue: 'Continue',
  unknownCode: 'This code is not valid: it may be mistyped, expired or already used.',
  approveHeading: '{client} asks for access',
  compareCode: 'Check that this code matches the one on your device:',
  scopesHeading: 'It will be able to',
  standardAccess: 'Standard access: read and write everything except billing, tokens, the account and members; delete nothing.',
  withheld: 'Your role does not allow these, so the token will not get them:',
  chatbotsHeading: 'Chatbots',
  allChatbots: 'Every chatbot of your account.',
  unknownChatbot: '{id}: not a chatbot of your account',
  cannotApprove: 'This request names chatbots that are not in your account, so it cannot be approved.',
  expires: 'The request expires at {time} UTC.',
  approve: 'Approve',
  deny: 'Deny',
  approvedHeading: 'Device approved',
  approved: 'You can return to your terminal. The token appears among your API tokens, where you can revoke it.',
  deniedHeading: 'Request denied',
  denied: 'The device gets no access. You can close this page.',
  alreadyAnswered: 'This request was already answered or has expired.',
  formExpired: 'This form expired or did not come from this page. Please try again.',
  tooMany: 'Too many requests. Wait a minute and try again.',
  failed: 'Something went wrong on our side. Please try again.',
  startOver: 'Start over',
};

export type Strings = typeof en;

const de: Strings = {
  title: 'Gerät anmelden',
  signInHeading: 'Anmelden, um ein Gerät zu bestätigen',
  signInIntro: 'Ein Kommandozeilenwerkzeug oder Agent möchte in Ihrem Parley-Konto handeln. Melden Sie sich zuerst an.',
  email: 'E-Mail',
  password: 'Passwort',
  signIn: 'Anmelden',
  signOut: 'Abmelden',
  signedInAs: 'Angemeldet als {email}.',
  wrongPassword: 'E-Mail oder Passwort ist nicht richtig.',
  throttled: 'Zu viele Versuche. Versuchen Sie es in {minutes} Min. erneut.',
  codeHeading: 'Geben Sie den Code ein, den Ihr Gerät zeigt',
  codeLabel: 'Code',
  codeHint: '8 Buchstaben, zum Beispiel BCDF-GHJK. Groß oder klein, mit oder ohne Bindestrich.',
  continue: 'Weiter',
  unknownCode: 'Dieser Code ist nicht gültig: vertippt, abgelaufen oder schon benutzt.',
  approveHeading: '{client} bittet um Zugriff',
  compareCode: 'Prüfen Sie, ob dieser Code mit dem auf Ihrem Gerät übereinstimmt:',
  scopesHeading: 'Es darf',
  standardAccess: 'Standardzugriff: alles lesen und schreiben außer Abrechnung, Tokens, Konto und Mitglieder; nichts löschen.',
  withheld: 'Ihre Rolle erlaubt diese nicht, der Token erhält sie daher nicht:',
  chatbotsHeading: 'Chatbots',
  allChatbots: 'Alle Chatbots Ihres Kontos.',
  unknownChatbot: '{id}: kein Chatbot Ihres Kontos',
  cannotApprove: 'Diese Anfrage nennt Chatbots, die nicht zu Ihrem Konto gehören; sie kann nicht bestätigt werden.',
  expires: 'Die Anfrage läuft um {time} UTC ab.',
  approve: 'Bestätigen',
  deny: 'Ablehnen',
  approvedHeading: 'Gerät bestätigt',
  approved: 'Sie können zum Terminal zurückkehren. Der Token steht bei Ihren API-Tokens, wo Sie ihn widerrufen können.',
  deniedHeading: 'Anfrage abgelehnt',
  denied: 'Das Gerät erhält keinen Zugriff. Sie können diese Seite schließen.',
  alreadyAnswered: 'Diese Anfrage wurde schon beantwortet oder ist abgelaufen.',
  formExpired: 'Dieses Formular ist abgelaufen oder kam nicht von dieser Seite. Bitte noch einmal versuchen.',
  tooMany: 'Zu viele Anfragen. Warten Sie eine Minute und versuchen Sie es erneut.',
  failed: 'Bei uns ist etwas schiefgegangen. Bitte noch einmal versuchen.',
  startOver: 'Von vorn beginnen',
};

const STRINGS: Record<Locale, Strings> = { en, da, de, es, fr, it, ja, nl, pl, pt, sv };

/** The first supported language of an Accept-Language header (quality order), else English. */
export function pickLocale(header: string | undefined): Locale {
  const wanted = (header ?? '')
    .split(',')
    .map((part) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { lang: tag.toLowerCase().split('-')[0], q: q === undefined ? 1 : Number(q) };
    })
    .filter((w) => w.q > 0)
    .sort((a, b) => b.q - a.q);
  return (wanted.find((w) => (LOCALES as readonly string[]).includes(w.lang))?.lang as Locale) ?? 'en';
}

export const stringsFor = (locale: Locale): Strings => STRINGS[locale];

/** `{name}` placeholders filled in (values are escaped by the page, not here). */
export const fill = (text: string, values: Record<string, string | number>) => text.replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? String(values[k]) : m));
