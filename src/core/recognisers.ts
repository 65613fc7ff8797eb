import { AMBIGUOUS_GIVEN_NAMES, GIVEN_NAMES, NOT_SURNAMES } from "./given-names.ts";

/**
 * The local recognisers behind the `person-name`, `address` and `regex-prompt-injection` builtins:
 * regular expressions only (no model, no network), tuned to miss rather than to redact ordinary prose.
 * Each is a source with its flags; content-filters.ts compiles them.
 */

/** A builtin recogniser: its pattern, its flags (always global) and its placeholder. */
export interface Recogniser {
  source: string;
  flags: string;
  label: string;
}

const words = (list: readonly string[]) => list.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");

/** A capitalised word of letters (a surname, a street's name), with inner hyphens or apostrophes. */
const CAPITALISED = String.raw`\p{Lu}\p{Ll}+(?:['-]\p{Lu}?\p{Ll}+)*`;
/** Not inside a longer word (\b is ASCII-only, so a name such as José needs letter lookarounds). */
const START = String.raw`(?<![\p{L}\p{N}])`;
const END = String.raw`(?![\p{L}\p{N}])`;

const HONORIFICS = ["Mr", "Mrs", "Ms", "Mx", "Miss", "Dr", "Prof", "Sir", "Dame", "Herr", "Frau", "Mme", "Mlle", "Monsieur", "Madame", "Sr", "Sra", "Srta", "Señor", "Señora", "Doña"];
const INTRODUCTIONS = ["my name is", "My name is", "call me", "Call me", "Name:", "name:", "ich heiße", "Ich heiße", "mein Name ist", "Mein Name ist", "je m'appelle", "Je m'appelle", "me llamo", "Me llamo", "mi nombre es", "Mi nombre es"];

/**
 * Person names: an honorific and a capitalised name (Dr. Jane Roe, Frau Müller), a capitalised name
 * after an introduction ("my name is …", "je m'appelle …"), a common given name with its surname if
 * any, and an ambiguous given name (May, Will, Mark) only before a capitalised surname.
 */
const PERSON_NAME = [
  String.raw`${START}(?:${words(HONORIFICS)})\.?\s+${CAPITALISED}(?:\s+${CAPITALISED})?${END}`,
  String.raw`(?<=(?:${words(INTRODUCTIONS)})\s+)${CAPITALISED}(?:\s+${CAPITALISED})?${END}`,
  String.raw`${START}(?:${words(GIVEN_NAMES)})(?:\s+(?!(?:${words(NOT_SURNAMES)})${END})${CAPITALISED})?${END}`,
  String.raw`${START}(?:${words(AMBIGUOUS_GIVEN_NAMES)})\s+(?!(?:${words(NOT_SURNAMES)})${END})${CAPITALISED}${END}`,
].join("|");

const EN_STREET_TYPES = ["Street", "Avenue", "Road", "Boulevard", "Lane", "Drive", "Court", "Place", "Way", "Terrace", "Square", "Parkway", "Highway", "Close", "Crescent", "Row", "Circle"];
/** Abbreviated street types, whose dot belongs to the address. */
const EN_STREET_ABBREVIATIONS = ["St", "Ave", "Rd", "Blvd", "Ln", "Dr", "Ct", "Pl", "Sq", "Pkwy", "Hwy"];
const DE_STREET_SUFFIXES = ["straße", "strasse", "str\\.", "weg", "gasse", "platz", "allee", "ring", "damm", "ufer", "chaussee"];
const DE_STREET_WORDS = ["Straße", "Strasse", "Str\\.", "Weg", "Gasse", "Platz", "Allee", "Ring", "Damm", "Ufer", "Chaussee"];
const FR_STREET_WORDS = ["rue", "avenue", "av\\.", "boulevard", "bd", "place", "chemin", "allée", "impasse", "quai", "route", "cours", "passage"];
const ES_STREET_WORDS = ["Calle", "C/", "Avenida", "Avda\\.?", "Paseo", "Plaza", "Camino", "Carrera", "Ronda", "Travesía"];
const both = (list: readonly string[]) => list.flatMap((word) => [word, word[0]!.toUpperCase() + word.slice(1)]);

/** Up to four capitalised (or ordinal) words naming a street. */
const STREET_NAME = String.raw`(?:(?:\p{Lu}[\p{L}'.-]*|\d{1,3}(?:st|nd|rd|th))\s+){1,4}`;

/**
 * Street addresses and postal lines: a house number before a street type (221B Baker Street, 1600
 * Pennsylvania Ave NW), a German street and its number (Hauptstraße 5, Berliner Allee 12a), a French
 * number before its street word (12 rue de la Paix), a Spanish street word and a number (Calle Mayor
 * 3); postal lines: US city, state and ZIP, UK postcodes, and a five-digit code and a town starting a
 * line or following a comma (10115 Berlin, 75001 Paris); a UK postcode after a town, a comma or at a
 * line's start (London SW1A 1AA), never a storage size (PS5 1TB).
 */
const ADDRESS = [
  String.raw`${START}\d{1,5}[A-Za-z]?\s+${STREET_NAME}(?:${words(EN_STREET_TYPES)}|(?:${words(EN_STREET_ABBREVIATIONS)})\.?)${END}(?:\s+(?:NW|NE|SW|SE|N|S|E|W)${END})?`,
  String.raw`${START}\p{Lu}[\p{L}-]*(?:${DE_STREET_SUFFIXES.join("|")})\s+\d{1,4}[a-z]?${END}`,
  String.raw`${START}\p{Lu}\p{L}+\s+(?:${DE_STREET_WORDS.join("|")})\s+\d{1,4}[a-z]?${END}`,
  String.raw`${START}\d{1,4}(?:\s?(?:bis|ter))?,?\s+(?:${both(FR_STREET_WORDS).join("|")})\s+(?:(?:de la|de l'|du|des|de|d')\s*)?${CAPITALISED}(?:\s+${CAPITALISED}){0,3}`,
  String.raw`${START}(?:${ES_STREET_WORDS.join("|")})\s+(?:(?:de la|de los|de las|del|de)\s+)?${CAPITALISED}(?:\s+${CAPITALISED}){0,3},?\s+(?:n\.?º\s*)?\d{1,4}${END}`,
  String.raw`${START}\p{Lu}[\p{L} .'-]{1,30},\s*[A-Z]{2}\s+\d{5}(?:-\d{4})?${END}`,
  String.raw`(?<=(?:^|[,\n]|\p{Lu}\p{Ll}+)[ \t]*)(?:[A-Z]{1,2}\d[A-Z\d]?)\s\d(?![TGMKP]B\b)[A-Z]{2}\b`,
  String.raw`(?<=(?:^|[,\n])[ \t]*)(?:[A-Z]-)?\d{5}\s+${CAPITALISED}(?:[ -]${CAPITALISED})?${END}`,
].join("|");

/**
 * Prompt injection, in English, German, French and Spanish: instructions to ignore what came before,
 * jailbreak personas (DAN, developer mode), exfiltration of the system prompt, and role overrides (a
 * fake `system:` turn, chat-template tokens, "from now on you are …").
 */
const PROMPT_INJECTION = [
  String.raw`\b(?:ignore|disregard|forget|override|bypass|skip)\s+(?:(?:all|any|every|the|your|my|of|these|those)\s+)*(?:previous|prior|above|earlier|preceding|foregoing|former|initial|original|system|existing)\s+(?:instructions?|prompts?|rules?|directions?|guidelines?|commands?|context|messages?|constraints?)\b`,
  String.raw`\b(?:ignore|disregard|forget)\s+(?:everything|all)\s+(?:above|before|you(?:'ve| have) been told)\b`,
  String.raw`\bignorier(?:e|en Sie)?\s+(?:alle\s+)?(?:vorherigen|bisherigen|obigen|vorigen)\s+(?:Anweisungen|Instruktionen|Regeln)\b`,
  String.raw`\bignore[rz]?\s+(?:toutes\s+)?les\s+(?:instructions|consignes|règles)\s+(?:précédentes|ci-dessus|antérieures)`,
  String.raw`\bignora\s+(?:todas\s+)?las\s+(?:instrucciones|reglas)\s+(?:anteriores|previas)\b`,
  String.raw`\byou\s+are\s+(?:now\s+)?(?:DAN|in\s+developer\s+mode|jailbroken|no\s+longer\s+(?:bound|restricted|an?\s+AI))\b`,
  String.raw`\b(?:DAN\s+mode|do\s+anything\s+now|developer\s+mode\s+(?:enabled|on)|enable\s+developer\s+mode|jailbreak\s+mode)\b`,
  String.raw`\b(?:reveal|show|print|output|repeat|display|leak|dump|tell\s+me|give\s+me|what\s+(?:is|are|was|were))\s+(?:me\s+)?(?:your|the)\s+(?:(?:full|entire|exact|original|hidden|secret|initial|system)\s+)*(?:system\s+prompt|system\s+message|initial\s+instructions|hidden\s+instructions|instructions\s+(?:above|you\s+were\s+given))\b`,
  String.raw`\brepeat\s+(?:the\s+|all\s+|everything\s+)?(?:text|words|everything)\s+above\b`,
  String.raw`\b(?:from\s+now\s+on|henceforth),?\s+you\s+(?:are|will\s+(?:act|be|respond)\s+as)\b`,
  String.raw`\b(?:pretend|act\s+as\s+if)\s+(?:that\s+)?you\s+(?:are|have)\s+(?:an?\s+AI\s+)?(?:with\s+)?no\s+(?:restrictions|rules|limits|limitations|guidelines|filters)\b`,
  String.raw`^[ \t]*(?:system|developer)\s*:`,
  String.raw`<\|im_start\|>\s*system|\[\s*(?:system|INST)\s*\]|<<SYS>>`,
  String.raw`\bnew\s+(?:system\s+)?instructions\s*:`,
].join("|");

/** The recognisers of the builtins added to the pattern-only ones. */
export const RECOGNISERS = {
  "person-name": { source: PERSON_NAME, flags: "gu", label: "[PERSON]" },
  address: { source: ADDRESS, flags: "gu", label: "[ADDRESS]" },
  "regex-prompt-injection": { source: PROMPT_INJECTION, flags: "gimu", label: "[PROMPT_INJECTION]" },
} as const satisfies Record<string, Recogniser>;
