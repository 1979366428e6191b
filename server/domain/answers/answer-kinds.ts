/**
 * What kind of answer a question wants, and whether a sentence is of that kind: "how long" wants a
 * duration ("three to five working days"), "how much" a price ("4.90 EUR", "free of charge"),
 * "when" a time or day, "where" a place, and "can I" / "may I" a permission or a rule ("You can
 * return any item within 30 days"). The built-in answerer (extractive.ts) prefers the sentences
 * that give what was asked over sentences that only repeat the question's words.
 *
 * Question side: question-words.ts `asks` (en, de, es, fr) plus the permission questions below.
 * Sentence side: numbers with units, currencies, clock times, day names, modal verbs (en, de, es, fr).
 */
import { asks, type Asks } from './question-words.js';

export type AnswerKind = Asks | 'permission' | 'procedure';

const PERMISSION_QUESTION =
  /^\s*(can|could|may|am i allowed|are we allowed|is it possible|is it allowed|do you (allow|accept|let)|is there a way|are .{1,40} allowed)\b|^\s*(kann|darf|können|dürfen|ist es möglich)\b|^\s*¿?\s*(puedo|puede|pueden|podemos|se puede|es posible)\b|^\s*(puis-je|peut-on|est-ce que (je|on) peut|est-il possible)\b/i;

const PROCEDURE_QUESTION =
  /\bhow (do|can|should|would) (i|we|you)\b|\bhow to\b|\bwhat (do|should) i do\b|\bwhat now\b|\bwie (kann|muss|soll) (ich|man)\b|\bwie \S+ ich\b|¿?\s*cómo (puedo|se|hago)\b|¿?\s*cómo \S+o\b|\bcomment (puis-je|faire|on)\b/i;

/** The kinds of answer the question asks for (possibly several). */
export function questionKinds(question: string): AnswerKind[] {
  const out: AnswerKind[] = asks(question);
  if (PERMISSION_QUESTION.test(question)) out.push('permission');
  if (PROCEDURE_QUESTION.test(question)) out.push('procedure');
  return out;
}

const NUMBER = String.raw`(?:\d+(?:[.,]\d+)?|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|ninety|half an?|a few|several|ein|eine|einen|zwei|drei|vier|fünf|sechs|sieben|acht|zehn|un|una|dos|tres|cuatro|cinco|siete|diez|quince|treinta|une|deux|trois|quatre|cinq|sept|dix|quinze|trente)`;
const UNIT = String.raw`(?:working |business |calendar |full )?(?:seconds?|minutes?|mins?|hours?|hrs?|days?|nights?|weeks?|months?|years?|sekunden|minuten|stunden|tagen?|werktagen?|wochen|monaten?|jahren?|segundos|minutos|horas?|días?|semanas?|meses|años?|secondes|heures?|jours?|semaines?|mois|ans?)`;

const SENTENCE: Record<AnswerKind, RegExp> = {
  duration: new RegExp(
    String.raw`\b${NUMBER}(?:\s*(?:-|–|to|or|and|bis|a|à|y|et|oder|o)\s*${NUMBER})?[\s-]*${UNIT}\b|\b(same day|next day|overnight|immediately|instantly|right away|am selben tag|sofort|el mismo día|le jour même)\b`,
    'iu',
  ),
  price:
    /[€$£¥]\s?\d|\d\s?(€|\$|£|eur|euros?|usd|dollars?|chf|gbp|sek|dkk|nok|kr|zł|pln)\b|\b(free of charge|for free|no charge|free|costs?|priced|kostenlos|gratis|gratuit|gratuita?)\b/iu,
  time: /\b\d{1,2}([:.]\d{2})?\s?(am|pm|a\.m\.|p\.m\.|uhr|h)\b|\b\d{1,2}:\d{2}\b|\b(mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?|weekdays?|weekends?|daily|montags?|dienstags?|mittwochs?|donnerstags?|freitags?|samstags?|sonntags?|lunes|martes|miércoles|jueves|viernes|sábados?|domingos?|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)\b/iu,
  place:
    /\b(street|road|avenue|square|st\.|rd\.|floor|located|address|straße|strasse|platz|calle|avenida|plaza|rue|place|étage)\b|\b\d{4,5}\s+\p{Lu}\p{Ll}+/u,
  // A step: an instruction ("Go to…", "Pass `limit`…", "Write to…") or "To cancel, open…".
  procedure:
    /^(to \S+|go|open|choose|click|tap|select|press|use|run|set|pass|write|send|enter|add|install|create|mark|put|place|register|update|change|call|print|pack|drop|measure|check|contact|submit|share|compute|reject|leave|upload|include|copy|configure|visit|follow|make|type|sign|log|delete|remove|back|spread|raise|switch|reply|report|ask|gehen|öffnen|wählen|klicken|schreiben|senden|rufen|vaya|abra|elija|pulse|escriba|envíe|llame|allez|ouvrez|choisissez|cliquez|écrivez|envoyez)\b|\b(under|in) (my|settings|mein|mi)\b|\bon the (login|dashboard|home) page\b|\bunter (mein|einstellungen)\b/iu,
  permission:
    /\b(can|cannot|can't|could|may|must|mustn't|only|allowed|not allowed|permitted|prohibited|required|requires?|need to|have to|within|unless|except|eligible|kann|können|darf|dürfen|muss|müssen|nur|innerhalb|puede|pueden|puedes|debe|deben|solo|sólo|dentro de|peut|peuvent|pouvez|doit|doivent|seulement|dans un délai)\b/iu,
};

/** True when the sentence gives an answer of one of the kinds asked for. */
export function answersKind(sentence: string, kinds: readonly AnswerKind[]): boolean {
  return kinds.some((k) => SENTENCE[k].test(sentence));
}

/** Numbers written in the question ("within 14 days", "the 500 MB limit"): a sentence holding one speaks to it. */
export function questionNumbers(question: string): string[] {
  // A number after a capitalised word is part of a name ("Trail 45"), not a quantity asked about.
  return [...question.matchAll(/(\p{Lu}[\p{L}-]*\s+)?(\d+(?:[.,]\d+)?)/gu)].filter((m) => !m[1]).map((m) => m[2]);
}

/** Names in the question (a capitalised word not opening it, a word with digits: "Ridge 2", "IPX7", "Zurich"). */
export function questionEntities(question: string): string[] {
  const out: string[] = [];
  const tokens = question.match(/[\p{L}\p{N}_-]+/gu) ?? [];
  tokens.forEach((w, i) => {
    if ((i > 0 && /^\p{Lu}/u.test(w) && w !== 'I') || (/\d/.test(w) && /\p{L}/u.test(w))) out.push(w);
  });
  return out;
}
