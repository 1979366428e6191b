/**
 * The e-mails visitor accounts send, per locale of shared/settings.ts LOCALES (the chatbot's
 * `localization.locale`; null or unknown means English): the sign-in code, the owner's notice of
 * a new lead, and the team's answer to a question the assistant could not answer.
 */
interface MailStrings {
  codeSubject: (bot: string) => string;
  codeBody: (bot: string, code: string, minutes: number) => string;
  leadSubject: (bot: string) => string;
  leadIntro: (bot: string) => string;
  gapSubject: (bot: string) => string;
  gapIntro: (bot: string) => string;
  yourQuestion: string;
  answer: string;
  ignore: string;
  /** Field labels of the lead notice. */
  labels: { name: string; email: string; phone: string };
}

const STRINGS: Record<string, MailStrings> = {
  ar: {
    codeSubject: (b) => `رمزك لـ ${b}`,
    codeBody: (b, c, m) => `رمزك لـ ${b} هو ${c}. وهو صالح لمدة ${m} دقيقة.`,
    leadSubject: (b) => `عميل محتمل جديد من ${b}`,
    leadIntro: (b) => `ترك زائر بياناته لدى ${b}:`,
    gapSubject: (b) => `لدى ${b} إجابة عن سؤالك`,
    gapIntro: (b) => `طرحت على ${b} سؤالًا لم نتمكن من الإجابة عنه فورًا. وقد أجاب عنه الفريق:`,
    yourQuestion: 'سؤالك',
    answer: 'الإجابة',
    ignore: 'إن لم تطلب هذا، يمكنك تجاهل هذه الرسالة.',
    labels: { name: 'الاسم', email: 'البريد الإلكتروني', phone: 'الهاتف' },
  },
  he: {
    codeSubject: (b) => `הקוד שלך עבור ${b}`,
    codeBody: (b, c, m) => `הקוד שלך עבור ${b} הוא ${c}. הוא תקף ל-${m} דקות.`,
    leadSubject: (b) => `ליד חדש מ-${b}`,
    leadIntro: (b) => `מבקר השאיר את פרטיו ב-${b}:`,
    gapSubject: (b) => `ל-${b} יש תשובה לשאלה שלך`,
    gapIntro: (b) => `שאלת את ${b} שאלה שלא יכולנו לענות עליה מיד. הצוות ענה עליה:`,
    yourQuestion: 'השאלה שלך',
    answer: 'תשובה',
    ignore: 'אם לא ביקשת זאת, אפשר להתעלם מהודעה זו.',
    labels: { name: 'שם', email: 'דוא״ל', phone: 'טלפון' },
  },
  en: {
    codeSubject: (b) => `Your ${b} code`,
    codeBody: (b, c, m) => `Your code for ${b} is ${c}. It is valid for ${m} minutes.`,
    leadSubject: (b) => `New lead from ${b}`,
    leadIntro: (b) => `A visitor left their details with ${b}:`,
    gapSubject: (b) => `${b} has an answer to your question`,
    gapIntro: (b) => `You asked ${b} a question we could not answer right away. The team has answered it:`,
    yourQuestion: 'Your question',
    answer: 'Answer',
    ignore: 'If you did not ask for this, you can ignore this e-mail.',
    labels: { name: 'Name', email: 'E-mail', phone: 'Phone' },
  },
  da: {
    codeSubject: (b) => `Din kode til ${b}`,
    codeBody: (b, c, m) => `Din kode til ${b} er ${c}. Den gælder i ${m} minutter.`,
    leadSubject: (b) => `Nyt lead fra ${b}`,
    leadIntro: (b) => `En besøgende har efterladt sine oplysninger hos ${b}:`,
    gapSubject: (b) => `${b} har et svar på dit spørgsmål`,
    gapIntro: (b) => `Du stillede ${b} et spørgsmål, vi ikke kunne svare på med det samme. Teamet har svaret:`,
    yourQuestion: 'Dit spørgsmål',
    answer: 'Svar',
    ignore: 'Hvis du ikke har bedt om dette, kan du se bort fra denne e-mail.',
    labels: { name: 'Navn', email: 'E-mail', phone: 'Telefon' },
  },
  de: {
    codeSubject: (b) => `Ihr Code für ${b}`,
    codeBody: (b, c, m) => `Ihr Code für ${b} lautet ${c}. Er ist ${m} Minuten gültig.`,
    leadSubject: (b) => `Neuer Lead von ${b}`,
    leadIntro: (b) => `Ein Besucher hat bei ${b} seine Kontaktdaten hinterlassen:`,
    gapSubject: (b) => `${b} hat eine Antwort auf Ihre Frage`,
    gapIntro: (b) =>
      `Sie haben ${b} eine Frage gestellt, die wir nicht sofort beantworten konnten. Das Team hat geantwortet:`,
    yourQuestion: 'Ihre Frage',
    answer: 'Antwort',
    ignore: 'Wenn Sie das nicht angefordert haben, können Sie diese E-Mail ignorieren.',
    labels: { name: 'Name', email: 'E-Mail', phone: 'Telefon' },
  },
  es: {
    codeSubject: (b) => `Tu código de ${b}`,
    codeBody: (b, c, m) => `Tu código para ${b} es ${c}. Es válido durante ${m} minutos.`,
    leadSubject: (b) => `Nuevo contacto desde ${b}`,
    leadIntro: (b) => `Un visitante dejó sus datos en ${b}:`,
    gapSubject: (b) => `${b} tiene una respuesta a tu pregunta`,
    gapIntro: (b) => `Hiciste a ${b} una pregunta que no pudimos responder en el momento. El equipo la ha respondido:`,
    yourQuestion: 'Tu pregunta',
    answer: 'Respuesta',
    ignore: 'Si no lo solicitaste, puedes ignorar este correo.',
    labels: { name: 'Nombre', email: 'Correo', phone: 'Teléfono' },
  },
  fr: {
    codeSubject: (b) => `Votre code ${b}`,
    codeBody: (b, c, m) => `Votre code pour ${b} est ${c}. Il est valable ${m} minutes.`,
    leadSubject: (b) => `Nouveau contact via ${b}`,
    leadIntro: (b) => `Un visiteur a laissé ses coordonnées sur ${b} :`,
    gapSubject: (b) => `${b} a une réponse à votre question`,
    gapIntro: (b) =>
      `Vous avez posé à ${b} une question à laquelle nous n'avons pas pu répondre tout de suite. L'équipe y a répondu :`,
    yourQuestion: 'Votre question',
    answer: 'Réponse',
    ignore: "Si vous n'avez rien demandé, ignorez cet e-mail.",
    labels: { name: 'Nom', email: 'E-mail', phone: 'Téléphone' },
  },
  it: {
    codeSubject: (b) => `Il tuo codice ${b}`,
    codeBody: (b, c, m) => `Il tuo codice per ${b} è ${c}. È valido per ${m} minuti.`,
    leadSubject: (b) => `Nuovo contatto da ${b}`,
    leadIntro: (b) => `Un visitatore ha lasciato i suoi dati su ${b}:`,
    gapSubject: (b) => `${b} ha una risposta alla tua domanda`,
    gapIntro: (b) => `Hai fatto a ${b} una domanda a cui non abbiamo potuto rispondere subito. Il team ha risposto:`,
    yourQuestion: 'La tua domanda',
    answer: 'Risposta',
    ignore: 'Se non lo hai richiesto, puoi ignorare questa e-mail.',
    labels: { name: 'Nome', email: 'E-mail', phone: 'Telefono' },
  },
  ja: {
    codeSubject: (b) => `${b} の確認コード`,
    codeBody: (b, c, m) => `${b} の確認コードは ${c} です。${m} 分間有効です。`,
    leadSubject: (b) => `${b} から新しいリード`,
    leadIntro: (b) => `訪問者が ${b} に連絡先を残しました:`,
    gapSubject: (b) => `${b} からご質問への回答が届きました`,
    gapIntro: (b) => `${b} にすぐにお答えできなかったご質問について、チームが回答しました:`,
    yourQuestion: 'ご質問',
    answer: '回答',
    ignore: 'お心当たりがない場合は、このメールを無視してください。',
    labels: { name: '名前', email: 'メール', phone: '電話' },
  },
  nl: {
    codeSubject: (b) => `Je code voor ${b}`,
    codeBody: (b, c, m) => `Je code voor ${b} is ${c}. Hij is ${m} minuten geldig.`,
    leadSubject: (b) => `Nieuwe lead via ${b}`,
    leadIntro: (b) => `Een bezoeker heeft zijn gegevens achtergelaten bij ${b}:`,
    gapSubject: (b) => `${b} heeft een antwoord op je vraag`,
    gapIntro: (b) => `Je stelde ${b} een vraag die we niet meteen konden beantwoorden. Het team heeft geantwoord:`,
    yourQuestion: 'Je vraag',
    answer: 'Antwoord',
    ignore: 'Heb je hier niet om gevraagd, dan kun je deze e-mail negeren.',
    labels: { name: 'Naam', email: 'E-mail', phone: 'Telefoon' },
  },
  pl: {
    codeSubject: (b) => `Twój kod do ${b}`,
    codeBody: (b, c, m) => `Twój kod do ${b} to ${c}. Jest ważny przez ${m} minut.`,
    leadSubject: (b) => `Nowy kontakt z ${b}`,
    leadIntro: (b) => `Odwiedzający zostawił swoje dane w ${b}:`,
    gapSubject: (b) => `${b} ma odpowiedź na Twoje pytanie`,
    gapIntro: (b) => `Zadałeś ${b} pytanie, na które nie mogliśmy od razu odpowiedzieć. Zespół odpowiedział:`,
    yourQuestion: 'Twoje pytanie',
    answer: 'Odpowiedź',
    ignore: 'Jeśli to nie Ty, zignoruj tę wiadomość.',
    labels: { name: 'Imię', email: 'E-mail', phone: 'Telefon' },
  },
  pt: {
    codeSubject: (b) => `Seu código de ${b}`,
    codeBody: (b, c, m) => `Seu código para ${b} é ${c}. Ele vale por ${m} minutos.`,
    leadSubject: (b) => `Novo contato via ${b}`,
    leadIntro: (b) => `Um visitante deixou seus dados em ${b}:`,
    gapSubject: (b) => `${b} tem uma resposta para sua pergunta`,
    gapIntro: (b) => `Você fez a ${b} uma pergunta que não conseguimos responder na hora. A equipe respondeu:`,
    yourQuestion: 'Sua pergunta',
    answer: 'Resposta',
    ignore: 'Se você não pediu isto, ignore este e-mail.',
    labels: { name: 'Nome', email: 'E-mail', phone: 'Telefone' },
  },
  sv: {
    codeSubject: (b) => `Din kod för ${b}`,
    codeBody: (b, c, m) => `Din kod för ${b} är ${c}. Den gäller i ${m} minuter.`,
    leadSubject: (b) => `Nytt lead från ${b}`,
    leadIntro: (b) => `En besökare lämnade sina uppgifter hos ${b}:`,
    gapSubject: (b) => `${b} har ett svar på din fråga`,
    gapIntro: (b) => `Du ställde en fråga till ${b} som vi inte kunde svara på direkt. Teamet har svarat:`,
    yourQuestion: 'Din fråga',
    answer: 'Svar',
    ignore: 'Om du inte bad om detta kan du bortse från det här mejlet.',
    labels: { name: 'Namn', email: 'E-post', phone: 'Telefon' },
  },
};

/** The chatbot's locale tag (`localization.locale`), `en` when unset. */
export function localeOf(settings: Record<string, unknown>): string {
  const locale = (settings.localization as { locale?: unknown } | null | undefined)?.locale;
  return typeof locale === 'string' && locale ? locale : 'en';
}

/** The strings of a locale tag (`de`, `de-AT`…); English when none ship for it. */
export function mailStrings(locale: string): MailStrings {
  const tag = locale.toLowerCase();
  return STRINGS[tag] ?? STRINGS[tag.split(/[-_]/)[0]] ?? STRINGS.en;
}

/** The name visitors know the chatbot by: the localised bot name, else its title. */
export function botName(chatbot: { title: string; settings: Record<string, unknown> }): string {
  const localized = (chatbot.settings.localization as { chatMessage?: { botName?: string | null } } | null | undefined)
    ?.chatMessage?.botName;
  return localized || chatbot.title;
}
