/**
 * A question in one language, a page in another: a small hand-written lexicon of the words
 * visitors ask a service or documentation site about, one line per meaning, in the languages
 * Parley ships that space their words (en, de, es, fr, it, pt, nl, da, sv, pl; not ja). No bilingual
 * dictionary is available offline (the npm registry has spelling dictionaries, no bilingual
 * one), and a site's own statistics cannot bridge languages: "Rückerstattung" shares no letter
 * pattern with "refund". expansion.ts adds the words of a question word's meanings that the
 * base uses as stand-ins, so "Wie lösche ich mein Konto?" searches "delete" and "account" on an
 * English help centre, and the gate and the answerer credit them.
 *
 * Words are matched with their inflections by a shared beginning (`sameWord`): no stemmer here
 * knows German or Spanish, and "cancelar" / "cancelación", "lösche" / "löschen", "restablezco" /
 * "restablecer" differ only at the end. The list is general service vocabulary, written once,
 * not per site: accounts, orders, payment, delivery, returns, subscriptions, bookings, opening
 * hours, documentation words (install, create, page, language). Words that are also common
 * English words of another meaning are left out ("kind", "tag", "time" in Danish, "location"
 * in French): an English question would find the wrong meaning. Words the question-word table
 * already reads (question-words.ts: how long, how much, when, where) are not repeated.
 */

const LEXICON = `
account accounts | konto kontos benutzerkonto | cuenta cuentas | compte comptes | account | conta contas | account accounts | konto konti | konto konton | konto konta kontem
password passwords | passwort kennwort | contraseña contraseñas | mot-de-passe | password | senha senhas palavra-passe | wachtwoord | adgangskode kodeord | lösenord | hasło hasła
login logon | anmelden anmeldung einloggen | iniciar-sesión acceder | connexion connecter | accedere accesso | entrar login | inloggen aanmelden | logge log-ind | logga inloggning | zalogować logowanie
register registration signup | registrieren registrierung | registrarse registro | inscription inscrire | registrarsi registrazione | registar cadastro | registreren | registrere tilmelde | registrera registrering | zarejestrować rejestracja
delete deleted deleting deletion remove | löschen lösche gelöscht löschung entfernen | eliminar elimino borrar borro | supprimer supprime suppression | eliminare | excluir apagar eliminar | verwijderen verwijder | slette slet sletning | radera ta-bort | usunąć usuwanie usunięcie
reset restore recover | zurücksetzen wiederherstellen | restablecer restablezco recuperar | réinitialiser récupérer | reimpostare recuperare | redefinir recuperar | herstellen resetten | nulstille gendanne | återställa återställ | zresetować przywrócić
change update edit | ändern ändere änderung aktualisieren | cambiar cambio modificar actualizar | modifier changer | cambiare modificare | alterar mudar | wijzigen veranderen | ændre ændring opdatere | ändra ändring uppdatera | zmienić zmiana
email e-mail mail | e-mail mail | correo correo-electrónico | courriel e-mail | e-mail posta | e-mail correio | e-mail mail | e-mail | e-post mejl | e-mail
contact support | kontakt kontaktieren support | contacto contactar soporte | contact contacter assistance | contatto contattare assistenza | contato contatar suporte | contact ondersteuning | kontakt kontakte kundeservice | kontakt kontakta kundtjänst | kontakt skontaktować
phone telephone call | telefon anrufen | teléfono llamar | téléphone appeler | telefono chiamare | telefone ligar | telefoon bellen | telefon ringe | telefon ringa | telefon zadzwonić
address | adresse anschrift | dirección domicilio | adresse | indirizzo | endereço morada | adres | adresse | adress | adres
order orders ordered | bestellung bestellungen bestellen bestelle bestellt | pedido pedidos pedir | commande commandes commander | ordine ordini ordinare | encomenda pedido | bestelling bestellen | ordre bestilling bestille | beställning beställa order | zamówienie zamówienia zamówić
buy purchase | kaufen kaufe kauf | comprar compra | acheter achat | comprare acquisto | comprar compra | kopen koop | købe køb | köpa köp | kupić kupno zakup
pay payment payments paid | zahlen bezahlen zahlung bezahlung | pagar pago pagos | payer paiement | pagare pagamento | pagar pagamento | betalen betaling | betale betaling | betala betalning | zapłacić płatność płatności
card credit | karte kreditkarte | tarjeta | carte | carta | cartão | kaart creditcard | kort kreditkort | kort kreditkort | karta karty
invoice invoices bill receipt | rechnung rechnungen quittung beleg | factura facturas recibo | facture factures reçu | fattura ricevuta | fatura recibo | factuur bon | faktura kvittering | faktura kvitto | faktura rachunek paragon
price prices cost costs fee fees | preis preise kosten kostet gebühr gebühren | precio precios cuesta coste costo tarifa tarifas | prix coût coûte frais tarif | prezzo costo costa tariffa | preço custo custa tarifa | prijs kosten kost tarief | pris priser koster gebyr | pris priser kostar avgift | ceny koszt kosztuje opłata
free | kostenlos gratis umsonst | gratis gratuito gratuita | gratuit gratuite | gratis gratuito | grátis gratuito | gratis | gratis | gratis kostnadsfri | darmowy bezpłatny
discount discounts reduced cheaper | rabatt ermäßigung ermäßigt günstiger | descuento descuentos rebaja | réduction remise | sconto sconti | desconto descontos | korting | rabat | rabatt | rabat zniżka
refund refunds refunded | rückerstattung erstattung erstatten zurückerstatten | reembolso reembolsar reembolsan | remboursement rembourser | rimborso rimborsare | reembolso reembolsar | terugbetaling restitutie | refusion tilbagebetaling | återbetalning | zwrot-pieniędzy
return returns returned | rückgabe zurückgeben zurückschicken rücksendung retoure | devolver devolución devoluciones | retour retourner renvoyer | reso restituire | devolução devolver | retour retourneren terugsturen | returnere returnering | returnera retur | zwrot zwrócić
exchange replace | umtausch umtauschen ersetzen | cambiar cambio reemplazar | échange échanger remplacer | cambio sostituire | troca trocar substituir | ruilen vervangen | bytte ombytning | byta | wymiana wymienić
cancel cancellation cancelled canceled | stornieren stornierung storno kündigen kündigung | cancelar cancelación anular | annuler annulation résilier résiliation | annullare disdire disdetta | cancelar cancelamento | annuleren opzeggen | annullere opsige opsigelse | avbryta avboka säga-upp | anulować anulowanie rezygnacja
subscription subscriptions subscribe | abo abonnement abonnieren | suscripción suscribirse abono | abonnement abonner | abbonamento abbonarsi | assinatura subscrição | abonnement | abonnement | prenumeration abonnemang | subskrypcja abonament
pause paused | pausieren pause unterbrechen | pausar pausa | suspendre pause | sospendere pausa | pausar pausa | pauzeren pauze | pause | pausa | wstrzymać
skip | überspringen auslassen aussetzen | saltar omitir | sauter | saltare | saltar pular | overslaan | springe | hoppa | pominąć
delivery deliveries deliver delivered shipping shipped | lieferung lieferungen liefern liefert geliefert zustellung | entrega entregas entregar entregan envío | livraison livrer | consegna consegnare | entrega entregar | levering leveren bezorging bezorgen | levering levere | leverans leverera | dostawa dostawy dostarczyć
shipping ship shipped | versand versenden verschicken | envío enviar envían | expédition expédier envoi | spedizione spedire | envio enviar | verzending verzenden | forsendelse sende | frakt skicka | wysyłka wysłać
day days daily | tage täglich | día días diario | jour jours | giorno giorni | dia dias | dag dagen | dag dage | dag dagar | dzień dni
week weeks weekly | woche wochen | semana semanas | semaine semaines | settimana settimane | semana semanas | week weken | uge uger | vecka veckor | tydzień tygodnie
month months monthly | monat monate monatlich | mes meses mensual | mois mensuel | mese mesi | mês meses | maand maanden | måned måneder | månad månader | miesiąc miesiące
hour hours | stunde stunden uhr | hora horas | heure heures | ora ore | hora horas | uur | - | timme timmar | godzina godziny
open opens opened opening | öffnen öffnet geöffnet öffnungszeiten | abrir abre abren abierto horario horarios | ouvrir ouvre ouvert horaires | aprire apre aperto orari | abrir abre aberto horário | open openen openingstijden | åbne åbent åbningstider | öppna öppet öppettider | otwarte otwarcia
close closes closed closing | schließen schließt geschlossen | cerrar cierra cierran cerrado | fermer ferme fermé | chiudere chiude chiuso | fechar fecha fechado | sluiten gesloten | lukke lukket | stänga stängt | zamknięte zamykać
shop store | laden geschäft filiale | tienda | magasin boutique | negozio | loja | winkel | butik | butik affär | sklep
weekend weekends saturday sunday | wochenende samstag sonntag | fin-de-semana sábado domingo | week-end samedi dimanche | fine-settimana sabato domenica | fim-de-semana sábado domingo | weekend zaterdag zondag | weekend lørdag søndag | helg lördag söndag | weekend sobota niedziela
holiday holidays | feiertag feiertage urlaub | festivo festivos vacaciones | férié fériés vacances | festivo festivi vacanze | feriado férias | feestdag vakantie | helligdag ferie | helgdag | święto urlop
book booking bookings reserve reservation | buchen buchung buchungen reservieren reservierung | reservar reserva reservas | réserver réservation | prenotare prenotazione | reservar reserva | boeken boeking reserveren reservering | booke booking reservere reservation | boka bokning reservera | rezerwować rezerwacja
advance beforehand | voraus vorher | antelación anticipación antes | avance | anticipo prima | antecedência | vooraf | forvejen forud | förväg | wyprzedzeniem
deposit | kaution pfand anzahlung | fianza depósito | caution dépôt | cauzione deposito | caução depósito | borg borgsom | depositum | deposition | kaucja depozyt
insurance insured | versicherung versichert | seguro asegurado | assurance assuré | assicurazione | seguro | verzekering | forsikring | försäkring | ubezpieczenie
damage damaged broken | schaden beschädigt kaputt | daño dañado roto | dommage endommagé cassé | danno danneggiato rotto | dano danificado | schade beschadigd kapot | skade beskadiget | skada skadad trasig | uszkodzenie uszkodzony
repair | reparatur reparieren panne | reparación reparar avería | réparation réparer panne | riparazione riparare guasto | reparação conserto | reparatie repareren | reparation reparere | reparation reparera | naprawa naprawić
rent rental hire | mieten miete vermietung verleih | alquilar alquiler | louer | noleggio noleggiare affitto | alugar aluguel aluguer | huren verhuur | leje udlejning | hyra uthyrning | wynająć wypożyczyć wypożyczalnia
warranty guarantee | garantie gewährleistung | garantía | garantie | garanzia | garantia | garantie | garanti | garanti | gwarancja
size sizes | größe größen | talla tallas tamaño | taille tailles | taglia taglie | tamanho | maat maten | størrelse | storlek | rozmiar
gift present voucher | geschenk verschenken gutschein | regalo regalar vale | cadeau offrir bon | regalo regalare buono | presente oferecer vale | cadeau geschenk cadeaubon | gavekort | present presentkort | prezent bon
children child kids | kinder | niños niño | enfants enfant | bambini bambino | crianças criança | kinderen | børn | - | dzieci dziecko
student students | student studenten studierende | estudiante estudiantes | étudiant étudiants | studente studenti | estudante estudantes | student studenten | studerende | student studenter | student studenci
customer customers | kunde kunden | cliente clientes | client clients | cliente clienti | cliente clientes | klant klanten | kunde kunder | kund kunder | klient klienci
install installation installing | installieren installation | instalar instalo instalación | installer installation | installare installazione | instalar instalação | installeren installatie | installere installation | installera installation | zainstalować instalacja
create creating | erstellen erstelle anlegen | crear | créer | creare | criar | maken aanmaken | oprette | skapa | utworzyć stworzyć
website site page pages | webseite website seite seiten | sitio-web página páginas | site page pages | sito pagina pagine | site página páginas | website pagina | hjemmeside | webbplats sida sidor | strona witryna
language languages multilingual translation | sprache sprachen mehrsprachig übersetzung | idioma idiomas multilingüe traducción | langue langues multilingue traduction | lingua lingue multilingue traduzione | idioma idiomas multilíngue tradução | taal talen meertalig vertaling | sprog flersproget oversættelse | språk flerspråkig översättning | język języki wielojęzyczny tłumaczenie
search | suche suchen | búsqueda buscar | recherche rechercher | ricerca cercare | pesquisa pesquisar | zoeken | søge søgning | söka sökning | wyszukiwanie szukać
image images photo photos picture | bild bilder foto fotos | imagen imágenes foto fotos | image images photo photos | immagine immagini foto | imagem imagens foto fotos | afbeelding afbeeldingen foto | billede billeder | bild bilder | obraz zdjęcie zdjęcia
file files upload | datei dateien hochladen | archivo archivos subir | fichier fichiers téléverser | file caricare | arquivo ficheiro carregar | bestand bestanden uploaden | fil filer uploade | fil filer ladda-upp | plik pliki przesłać
download | herunterladen download | descargar descarga | télécharger | scaricare | baixar transferir | downloaden | downloade hente | ladda-ner | pobrać pobieranie
deploy deployment publish | bereitstellen veröffentlichen deployment | desplegar publicar despliegue | déployer publier déploiement | pubblicare distribuire | implantar publicar | publiceren uitrollen | udrulle publicere | publicera driftsätta | wdrożyć opublikować
domain domains | domain domäne | dominio | domaine | dominio | domínio | domein | domæne | domän | domena
error errors problem | fehler problem | error errores problema | erreur problème | errore problema | erro problema | fout probleem | fejl problem | fel problem | błąd problem
signature signatures signed | signatur unterschrift signieren | firma firmar | signature signer | firma firmare | assinatura assinar | handtekening ondertekenen | signatur underskrift | signatur underskrift | podpis
verify verification check | prüfen überprüfen verifizieren | verificar verifico comprobar | vérifier vérification | verificare | verificar | controleren verifiëren | verificere kontrollere | verifiera kontrollera | zweryfikować sprawdzić
key keys | schlüssel | clave llave | clé | chiave | chave | sleutel | nøgle | nyckel | klucz
limit limits | limit grenze begrenzung | límite límites | limite limites | limite limiti | limite limites | limiet | grænse | gräns | limit
dispute disputes chargeback | streitfall reklamation rückbuchung | disputa disputas reclamación | litige contestation | contestazione controversia | disputa contestação | geschil terugboeking | tvist indsigelse | tvist | spór reklamacja
answer respond reply | antworten beantworten antwort | responder respuesta | répondre réponse | rispondere risposta | responder resposta | antwoorden antwoord | svare svar | svara svar | odpowiedzieć odpowiedź
`;

/** Lower case, NFKC, diacritics dropped (visitors type "cancelacion" as often as "cancelación"). */
export function fold(word: string): string {
  return word.normalize('NFKC').toLowerCase().normalize('NFD').replace(/\p{M}/gu, '');
}

/** Shortest shared beginning that makes two words one (shorter words must be equal: Portuguese "conta" is not "contact"). */
const MIN_PREFIX = 6;
/** Letters an inflected ending may have beyond the shared beginning: on the shorter word, on the longer one. */
const MAX_ENDING = 3;
const MAX_LONG_ENDING = 5;

/** The same word in another inflection: equal, or sharing a beginning of 6+ letters after which each has only an ending left ("lösche" / "löschen", "cancelar" / "cancelación"). */
export function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  const shorter = Math.min(a.length, b.length);
  if (shorter < MIN_PREFIX) return false;
  let i = 0;
  while (i < shorter && a[i] === b[i]) i++;
  return i >= MIN_PREFIX && i >= shorter - MAX_ENDING && i >= Math.max(a.length, b.length) - MAX_LONG_ENDING;
}

/** Each meaning's single words, folded (multi-word entries are left out: words are matched one by one). */
const MEANINGS: string[][] = LEXICON.trim()
  .split('\n')
  .map((line) => [
    ...new Set(
      line
        .split(/[|\s]+/)
        .filter((w) => w && !/['-]/.test(w))
        .map(fold),
    ),
  ]);

const byStart = new Map<string, number[]>();
for (const [i, words] of MEANINGS.entries())
  for (const w of words) {
    const key = w.slice(0, Math.min(w.length, MIN_PREFIX));
    const list = byStart.get(key) ?? [];
    if (!list.includes(i)) list.push(i);
    byStart.set(key, list);
  }

/**
 * The words (folded, every language) of the meanings `word` is a form of, its own forms first
 * ("cancelar" brings "cancelación" before "cancel" and "stornieren"); empty when the lexicon does
 * not know it.
 */
export function translations(word: string): string[] {
  const w = fold(word);
  const own = new Set<string>();
  const other = new Set<string>();
  for (const i of byStart.get(w.slice(0, Math.min(w.length, MIN_PREFIX))) ?? []) {
    if (!MEANINGS[i].some((x) => sameWord(x, w))) continue;
    for (const x of MEANINGS[i]) (sameWord(x, w) ? own : other).add(x);
  }
  return [...own, ...[...other].filter((x) => !own.has(x))];
}

/** A base's vocabulary by folded beginning, for finding its forms of a lexicon word. */
export type VocabularyIndex = Map<string, { word: string; folded: string; count: number }[]>;

export function indexVocabulary(vocabulary: ReadonlyMap<string, number>): VocabularyIndex {
  const index: VocabularyIndex = new Map();
  for (const [word, count] of vocabulary) {
    const folded = fold(word);
    const key = folded.slice(0, Math.min(folded.length, MIN_PREFIX));
    const list = index.get(key) ?? [];
    list.push({ word, folded, count });
    index.set(key, list);
  }
  return index;
}

/** The base's words that are forms of `folded`, most used first. */
export function baseForms(folded: string, index: VocabularyIndex): string[] {
  return (index.get(folded.slice(0, Math.min(folded.length, MIN_PREFIX))) ?? [])
    .filter((x) => sameWord(x.folded, folded))
    .sort((a, b) => b.count - a.count)
    .map((x) => x.word);
}
