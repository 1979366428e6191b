/**
 * Small talk: a greeting, thanks, a goodbye, "are you a bot?", "how are you?". It gets a short
 * reply in the chatbot's locale (messages.ts), is never searched for, never recorded as a
 * knowledge gap, and never carries a topic into the next question (engine.ts).
 *
 * A message is small talk when all of it is: "hi" is, "hi, how do I cancel?" is not. Greetings
 * may open the other kinds ("hi, are you a bot?"); "ok" or "great" may open thanks. Phrases in the
 * shipped locales (shared/settings.ts LOCALES).
 */
import { normalizeForMatch, terms } from './text.js';

export type SmallTalk = 'greeting' | 'thanks' | 'goodbye' | 'aboutMe' | 'howAreYou';

const GREETING =
  'hi|hello|hey|hiya|howdy|yo|good (morning|afternoon|evening|day)|hallo|hej|hey there|hi there|hello there|hola|buenas|buenos días|buenas tardes|buenas noches|bonjour|bonsoir|salut|ciao|buongiorno|buonasera|olá|ola|oi|bom dia|boa tarde|moin|servus|grüß gott|guten (morgen|tag|abend)|goedemorgen|goedemiddag|dag|dzień dobry|cześć|god morgen|god dag|こんにちは|こんばんは|おはよう(ございます)?|مرحبا|مرحبًا|أهلا|أهلًا|السلام عليكم|שלום|היי';
const THANKS =
  'thanks?( you)?( (so|very) much)?( a lot)?|thx|ty|cheers|many thanks|great thanks|perfect thanks|danke( schön| sehr)?|vielen dank|merci( beaucoup| bien)?|gracias|muchas gracias|obrigad[oa]|grazie( mille)?|tak|mange tak|tusen tack|dank je( wel)?|dank u( wel)?|bedankt|dziękuję|dzięki|tack( så mycket)?|ありがとう(ございます)?|شكرا|شكرًا|شكرا جزيلا|شكرًا جزيلًا|תודה|תודה רבה';
const ACKNOWLEDGE =
  'ok|okay|great|perfect|cool|nice|super|alright|got it|understood|i see|gut|genial|parfait|d accord|perfecto|vale|perfetto|ottimo|ótimo|prima|oké|dobrze|bra|okej';
const GOODBYE =
  'bye|bye bye|goodbye|good bye|see you|see ya|ciao|have a nice day|tschüss|tschüs|auf wiedersehen|adiós|adios|hasta luego|au revoir|à bientôt|arrivederci|tchau|até logo|tot ziens|doei|do widzenia|hej då|hej hej|farvel|vi ses|さようなら|またね|مع السلامة|إلى اللقاء|להתראות|ביי';
const ABOUT_ME =
  'are you (a )?(bot|robot|human|real person|real|person|ai|machine|chatbot)|am i (talking|speaking|chatting) (to|with) (a )?(bot|robot|human|real person|person|machine)|who are you|what are you|is this (a )?(bot|robot|human|real person)|bist du (ein )?(bot|roboter|mensch)|sind sie (ein )?(bot|roboter|mensch)|wer bist du|eres (un )?(bot|robot|humano)|quién eres|es tu un (bot|robot)|êtes vous un (bot|robot)|es tu (un )?(bot|robot|humain)|qui es tu|sei un (bot|robot)|chi sei|você é (um )?(bot|robô)|ben je een (bot|robot|mens)|czy jesteś (botem|robotem)|är du en (bot|robot)|er du en (bot|robot)';
const HOW_ARE_YOU =
  'how are you( doing)?( today)?|how s it going|how are things|what s up|wie geht s|wie geht es (dir|ihnen)|qué tal|cómo estás|ça va|comment allez vous|comment ça va|come stai|come va|tudo bem|como vai|hoe gaat het|jak się masz|hur mår du|hvordan går det|お元気ですか';

const whole = (alternatives: string) => new RegExp(`^(${alternatives})$`);
const KINDS: [SmallTalk, RegExp][] = [
  ['thanks', whole(`((${ACKNOWLEDGE}) )?(${THANKS})( (${THANKS}))?|${ACKNOWLEDGE}`)],
  ['aboutMe', whole(ABOUT_ME)],
  ['howAreYou', whole(HOW_ARE_YOU)],
  // Before goodbyes: "ciao" opens a conversation more often than it closes one.
  ['greeting', whole(GREETING)],
  ['goodbye', whole(`((${THANKS}) )?(${GOODBYE})( (${THANKS}))?`)],
];
const LEADING_GREETING = new RegExp(`^(${GREETING}) `);
const SOCIAL_PHRASES = new RegExp(`(^| )(${GREETING}|${THANKS}|${GOODBYE}|${ACKNOWLEDGE})(?= |$)`, 'g');
/** Words that only address or please ("nice to meet you", "hello everyone", "hi again, bot"): no topic. */
const SOCIAL_WORDS = new Set(
  terms(
    'nice meet meeting pleased glad happy again everyone everybody all folks team guys friend friends there ' +
      'bot chatbot assistant robot support help helper dear sir madam world today tonight lovely wonderful ' +
      'zusammen alle allerseits tout monde todos todas tutti iedereen allemaal wszystkim alla allihopa',
  ),
);

/**
 * Greeting-like: small talk, or a message opening with a greeting, thanks or goodbye whose other
 * words only address or please ("Hello everyone, nice to meet you!"). Such a message asks the
 * knowledge nothing, so a model's "not covered" on it is no knowledge gap.
 */
export function greetingLike(message: string): boolean {
  if (smallTalk(message)) return true;
  const q = normalizeForMatch(message);
  const rest = q.replace(SOCIAL_PHRASES, ' ');
  if (rest === q) return false;
  return terms(rest).every((t) => SOCIAL_WORDS.has(t));
}

/** What kind of small talk the whole message is, or null for anything else (a question). */
export function smallTalk(message: string): SmallTalk | null {
  const q = normalizeForMatch(message);
  if (!q) return null;
  for (const text of [q, q.replace(LEADING_GREETING, '')]) {
    for (const [kind, pattern] of KINDS) if (pattern.test(text)) return kind;
  }
  return null;
}
