/**
 * The verification page's text, per locale: the widget's languages (widget/i18n), English as the
 * fallback. English is in english.ts, German here, the others in translations.ts.
 */
import { pickLanguage } from '../../http/languages.js';
import { en, type Strings } from './english.js';
import { ar, da, es, fr, he, it, ja, nl, pl, pt, sv } from './translations.js';

export type { Strings };

export const LOCALES = ['en', 'ar', 'da', 'de', 'es', 'fr', 'he', 'it', 'ja', 'nl', 'pl', 'pt', 'sv'] as const;
export type Locale = (typeof LOCALES)[number];

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
  standardAccess:
    'Standardzugriff: alles lesen und schreiben außer Abrechnung, Tokens, Konto und Mitglieder; nichts löschen.',
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

const STRINGS: Record<Locale, Strings> = { en, ar, da, de, es, fr, he, it, ja, nl, pl, pt, sv };

/** The first supported language of an Accept-Language header (quality order), else English. */
export const pickLocale = (header: string | undefined): Locale => pickLanguage(header, LOCALES);

export const stringsFor = (locale: Locale): Strings => STRINGS[locale];

/** `{name}` placeholders filled in (values are escaped by the page, not here). */
export const fill = (text: string, values: Record<string, string | number>) =>
  text.replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? String(values[k]) : m));
