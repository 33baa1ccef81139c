/**
 * Seeded graph generator
 * ======================
 * Realistic graphs of any size for the benchmarks, the same bytes for the same options.
 *
 * Shape (chosen to look like a Wikidata / YAGO extract, so search and statements see real skew):
 *  - Entities. The first `predicates` entities are properties (`P1`, `P2`, ...; type "1"; labels
 *    like "place of birth" or YAGO's "isLocatedIn"). The others are items (`Q1`, `Q2`, ...) of seven
 *    kinds, and the kind decides the type, so the types are skewed the way real classes are:
 *    person "0" (42%), place "2", organization "3", work "4", event "5", code "6", taxon "7".
 *    Names mix scripts and traps for the folding rules: accented Latin ("Albrecht Dürer", "José
 *    Ibáñez"), punctuation ("Seán O'Brien (footballer)", "AC/DC"), Greek with final sigma, Cyrillic
 *    with ё, Chinese, Japanese, Korean, Arabic, Turkish İ/ı, German ß, ligatures (ﬁ), full-width
 *    letters, compatibility characters (№, Ⅻ) and, now and then, an emoji (some with ZWJ).
 *    sourceType is one of a few values, skewed.
 *  - Statements. Predicate: Zipf (s = 1) over the properties. Subject: bounded power law
 *    (exponent SUBJECT_EXPONENT) over the items, so out-degrees are power-law; object: power law
 *    with a steeper exponent (a few hubs collect many in-links). "Class-like" properties (every
 *    CLASS_PREDICATE_EVERY-th one, like "instance of", P1 the most used) are different: any item
 *    has them about equally often, and their objects are the CLASS_COUNT top hubs (Zipf), so
 *    "human" gets millions of in-links without every hub subject repeating the same triple. Hub
 *    ranks are scattered over the id space by an affine permutation, different for subjects and
 *    objects.
 *    Every statement carries an explicit fingerprint, unique by construction (its low half is a
 *    bijection of the statement's number), so the graph has exactly the requested number of
 *    statements; a repeated triple is a second statement of it (as qualifiers make in Wikidata).
 *    With `fingerprints: "derived"` they are left out and Quiver derives them (repeats then merge).
 *
 * Streaming: entities and statements are produced one at a time from a mulberry32 stream each
 * (independent, so statements never depend on how names were drawn). Memory is O(entities) for the
 * id strings, never O(statements): `writeGraphJsonl` writes 10M statements in batches without
 * building their objects, `generateGraph` yields objects lazily, `buildGeneratedGraph` feeds a
 * GraphBuilder directly.
 *
 * Cost: about 0.5 µs an entity and 1 µs a statement object; writeGraphJsonl writes 1M entities and
 * 10M statements (1.3 GB) in under a minute on 2 cores.
 * References: mulberry32 (Tommy Ettinger, public domain); power-law sampling by inverting the CDF
 * of the continuous bounded Pareto density, Clauset, Shalizi, Newman, "Power-law distributions in
 * empirical data", SIAM Review 2009, appendix D.
 */

import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";

import { mulberry32 } from "./prng.js";
import { GraphBuilder } from "../src/engine/graph-builder.js";
import { fmix32 } from "../src/engine/hash64.js";
import type { Graph } from "../src/engine/graph.js";
import type { Entity, EntityType, StatementInput } from "../src/engine/types.js";
export { mulberry32 };

/** How many properties a graph gets (fewer for tiny graphs, see predicateCount). */
export const DEFAULT_PREDICATE_COUNT = 300;
/** Power-law exponent of subject out-degrees (density ~ rank^-s over the items). */
export const SUBJECT_EXPONENT = 0.6;
/** Power-law exponent of object in-degrees: steeper, a few hubs take a large share. */
export const OBJECT_EXPONENT = 0.9;
/** Zipf exponent of predicate use. */
export const PREDICATE_EXPONENT = 1.0;
/** Every this-many-th property is class-like ("instance of"): its objects are the top hubs only. */
export const CLASS_PREDICATE_EVERY = 7;
/** How many top object hubs class-like properties draw from. */
export const CLASS_COUNT = 200;
/** Share of names that get an emoji, of Latin names written in full-width letters, with a ligature. */
export const EMOJI_SHARE = 0.01;
export const FULL_WIDTH_SHARE = 0.01;
export const LIGATURE_SHARE = 0.01;
/** Characters of JSON Lines buffered before one write. */
const WRITE_BATCH_CHARS = 1 << 20;
/** Statement lines built as one string before an awaited write. */
const WRITE_CHUNK_STATEMENTS = 50_000;

export interface GenerateOptions {
  entities: number;
  statements: number;
  seed?: number;
  /** Properties among the entities; default min(DEFAULT_PREDICATE_COUNT, entities / 20), at least 1. */
  predicates?: number;
  /** "explicit" (default): every statement carries a unique fingerprint. "derived": none given. */
  fingerprints?: "explicit" | "derived";
}

interface Plan {
  entities: number;
  statements: number;
  seed: number;
  predicates: number;
  items: number;
  explicit: boolean;
}

function plan(options: GenerateOptions): Plan {
  const { entities, statements } = options;
  if (!Number.isSafeInteger(entities) || entities < 0)
    throw new RangeError(`entities must be a whole number >= 0, got ${entities}`);
  if (!Number.isSafeInteger(statements) || statements < 0)
    throw new RangeError(`statements must be a whole number >= 0, got ${statements}`);
  if (statements > 0xffffffff)
    throw new RangeError("at most 2^32 - 1 statements (fingerprints are unique by a 32-bit bijection)");
  const predicates = options.predicates ?? Math.max(1, Math.min(DEFAULT_PREDICATE_COUNT, Math.floor(entities / 20)));
  if (statements > 0 && entities < predicates + 1) {
    throw new RangeError(`statements need at least one property and one item: entities must be > ${predicates}`);
  }
  return {
    entities,
    statements,
    seed: (options.seed ?? 1) >>> 0,
    predicates: Math.min(predicates, entities),
    items: Math.max(0, entities - predicates),
    explicit: (options.fingerprints ?? "explicit") === "explicit",
  };
}

// ---------------------------------------------------------------------------------------------
// Randomness

/** Seeds of the independent streams: names, statements. */
const NAME_STREAM = 0x9e3779b9;
const STATEMENT_STREAM = 0x85ebca6b;

/**
 * Rank in [0, n) from a bounded power law with density ~ x^-s on [1, n + 1), by inverting its CDF.
 * Rank 0 is the most likely.
 */
function powerLawRank(u: number, n: number, s: number): number {
  const x = s === 1 ? (n + 1) ** u : (1 + u * ((n + 1) ** (1 - s) - 1)) ** (1 / (1 - s));
  const r = Math.floor(x) - 1;
  return r < 0 ? 0 : r >= n ? n - 1 : r;
}

/** Exact discrete Zipf over a small n (the properties): cumulative weights, binary search. */
class ZipfTable {
  private readonly cumulative: Float64Array;
  constructor(n: number, s: number) {
    this.cumulative = new Float64Array(n);
    let total = 0;
    for (let k = 0; k < n; k++) this.cumulative[k] = total += 1 / (k + 1) ** s;
    for (let k = 0; k < n; k++) this.cumulative[k] = (this.cumulative[k] as number) / total;
  }
  rank(u: number): number {
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.cumulative[mid] as number) > u) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

/** r -> (r * a + b) mod n with gcd(a, n) = 1: scatters hub ranks over the id space. */
class AffinePermutation {
  private readonly n: number;
  private readonly aHi: number;
  private readonly aLo: number;
  private readonly b: number;
  constructor(n: number, multiplier: number, offset: number) {
    this.n = Math.max(1, n);
    let a = multiplier % this.n || 1;
    while (gcd(a, this.n) !== 1) a++;
    // Split a so that each product stays below 2^53 for any n < 2^37.
    this.aHi = Math.floor(a / 65536);
    this.aLo = a % 65536;
    this.b = offset % this.n;
  }
  map(r: number): number {
    const n = this.n;
    return (((r * this.aHi) % n) * 65536 + r * this.aLo + this.b) % n;
  }
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

// ---------------------------------------------------------------------------------------------
// Names

const LATIN_FIRST = [
  "José",
  "Albrecht",
  "François",
  "Søren",
  "Łukasz",
  "Zoë",
  "Renée",
  "João",
  "Björn",
  "Chloé",
  "Anaïs",
  "Mikheil",
  "Siobhán",
  "Seán",
  "Antonín",
  "Jürgen",
  "Ángel",
  "Inés",
  "Dagný",
  "Małgorzata",
  "Eoin",
  "Ólafur",
  "Agnès",
  "Nuño",
  "John",
  "Mary",
  "Peter",
  "Elena",
  "David",
  "Sarah",
  "Michael",
  "Anna",
  "James",
  "Laura",
  "Robert",
  "Emma",
  "Thomas",
  "Julia",
  "Daniel",
  "Sophie",
  "Paul",
  "Marie",
  "Mark",
  "Claire",
  "Stefan",
  "Eva",
  "Carlos",
  "Lucía",
  "Matteo",
  "Giulia",
  "Pierre",
  "Hélène",
  "Hans",
  "Greta",
  "Piotr",
  "Zofia",
  "Erik",
  "Ingrid",
  "Tomás",
  "Aoife",
  "Kevin",
  "Jennifer",
  "Ali",
  "Fatima",
  "Luis",
  "Carmen",
  "George",
  "Helen",
  "Edward",
  "Alice",
  "Frank",
  "Rose",
  "Henry",
  "Grace",
  "Jack",
  "Lily",
];
const LATIN_SURNAME_HEADS = [
  "Dür",
  "Gar",
  "Mül",
  "Schmidt",
  "Kov",
  "Ib",
  "Fer",
  "Hern",
  "Rodr",
  "Gonz",
  "Nov",
  "Lew",
  "Wój",
  "Sø",
  "Ørst",
  "Berg",
  "Lind",
  "Johan",
  "Ander",
  "Pet",
  "Mart",
  "Rossi",
  "Bian",
  "Esp",
  "Duv",
  "Lef",
  "Mor",
  "Bl",
  "Hart",
  "Will",
  "Thom",
  "Rob",
  "Walk",
  "Whit",
  "Harr",
  "Clar",
  "Lew",
  "Smith",
  "Brown",
  "Jones",
  "Tayl",
  "Dav",
  "Ev",
  "Hug",
  "Edw",
  "Kel",
];
const LATIN_SURNAME_TAILS = [
  "er",
  "cía",
  "ler",
  "ač",
  "áñez",
  "nández",
  "ández",
  "íguez",
  "ález",
  "ák",
  "andowski",
  "cik",
  "ren",
  "ed",
  "gren",
  "ström",
  "sson",
  "son",
  "sen",
  "tínez",
  "ini",
  "chi",
  "ósito",
  "al",
  "èvre",
  "eau",
  "anc",
  "ley",
  "iams",
  "pson",
  "erts",
  "ker",
  "ington",
  "is",
  "ke",
  "ins",
  "es",
  "hes",
  "ards",
  "ly",
  "ová",
  "escu",
  "ić",
  "ović",
  "oğlu",
  "é",
  "",
];
const SURNAME_PREFIXES = ["O'", "Mc", "Mac", "van ", "de ", "von ", "D'", "di ", "al-", "da ", "Fitz", "ten "];
const DISAMBIGUATORS = [
  " (footballer)",
  " (politician)",
  " (musician)",
  " (born 1952)",
  " (born 1987)",
  " (actor)",
  " (painter)",
  " (writer)",
  " (cricketer)",
  ", Jr.",
  " III",
  " (American football)",
  " (bishop)",
  " (singer)",
  " (rugby union)",
];
const PLACE_HEADS = [
  "Ber",
  "Mün",
  "Kra",
  "Reyk",
  "Val",
  "Nor",
  "Ash",
  "Lin",
  "Wes",
  "Bran",
  "Stock",
  "Mar",
  "Gre",
  "Hal",
  "Ox",
  "Cam",
  "Dun",
  "Kil",
  "Aber",
  "Llan",
  "Tre",
  "Pen",
  "Ros",
  "Alt",
  "Neu",
  "Ober",
  "Vila",
  "Santa ",
  "Cór",
  "Zür",
  "Gdańsk",
  "Łódź",
  "Brno",
  "Plze",
  "Győ",
  "Pécs",
  "Tár",
  "Ål",
  "Øster",
  "Jön",
  "Esp",
  "Tam",
];
const PLACE_TAILS = [
  "lin",
  "chen",
  "ków",
  "javík",
  "encia",
  "wich",
  "ford",
  "ton",
  "ville",
  "burg",
  "grad",
  "stadt",
  "heim",
  "polis",
  "ia",
  "dale",
  "mouth",
  "brook",
  "field",
  "ice",
  "ov",
  "ín",
  "doba",
  "ich",
  "ň",
  "r",
  "s",
  "borg",
  "sund",
  "ås",
  "ere",
  "ingen",
  "hausen",
  "au",
  "ey",
  "by",
  "",
];
const PLACE_PREFIXES = [
  "San ",
  "São ",
  "Saint-",
  "Bad ",
  "New ",
  "Port ",
  "Nieder",
  "Sankt ",
  "Fort ",
  "Villa ",
  "El ",
  "La ",
];
const PLACE_QUALIFIERS = [
  ", Texas",
  " County",
  " (Ohio)",
  ", Ontario",
  ", Bavaria",
  " District",
  ", Norway",
  " Township",
  ", Nord-Pas-de-Calais",
  " (village)",
];
const GERMAN_STREETS = [
  "Hauptstraße",
  "Bahnhofstraße",
  "Große Freiheit",
  "Gartenstraße",
  "Schloßallee",
  "Maßstab",
  "GROSSE STRASSE",
  "Weißensee",
  "Straßburg",
];
const TURKISH_NAMES = [
  "İstanbul",
  "İzmir",
  "İsmail",
  "Işıl",
  "Yılmaz",
  "Çelik",
  "Şahin",
  "Öztürk",
  "İnönü",
  "Ilgaz",
  "Kırıkkale",
  "Iğdır",
];
const GREEK_FIRST = [
  "Γιώργος",
  "Νίκος",
  "Ελένη",
  "Μαρία",
  "Οδυσσέας",
  "Σοφία",
  "Κώστας",
  "Δημήτρης",
  "Αικατερίνη",
  "Ιωάννης",
];
const GREEK_LAST = [
  "Παπαδόπουλος",
  "Ελύτης",
  "Καζαντζάκης",
  "Σεφέρης",
  "Οικονόμου",
  "Γεωργίου",
  "Βλάχος",
  "Αθανασίου",
  "ΟΔΟΣ",
  "Μητσοτάκης",
];
const GREEK_PLACES = [
  "Θεσσαλονίκη",
  "Αθήνα",
  "Πάτρα",
  "Ηράκλειο",
  "Λάρισα",
  "Βόλος",
  "Ιωάννινα",
  "Χανιά",
  "Ρόδος",
  "Κέρκυρα",
];
const CYRILLIC_FIRST = [
  "Фёдор",
  "Анна",
  "Сергей",
  "Наталья",
  "Юрий",
  "Ольга",
  "Дмитрий",
  "Татьяна",
  "Алексей",
  "Ёлена",
  "Михаил",
  "Олександр",
];
const CYRILLIC_LAST = [
  "Достоевский",
  "Иванова",
  "Ёлкин",
  "Щербаков",
  "Жуков",
  "Толстой",
  "Петров",
  "Шевченко",
  "Кузнецова",
  "Соловьёв",
  "Чехов",
];
const CYRILLIC_PLACE_HEADS = ["Ново", "Екатерин", "Санкт-", "Владиво", "Черно", "Бело", "Красно", "Ниж", "Ярос"];
const CYRILLIC_PLACE_TAILS = ["сибирск", "бург", "Петербург", "сток", "горск", "ярск", "дар", "ний Новгород", "лавль"];
const CHINESE_SURNAMES = [
  "王",
  "李",
  "张",
  "刘",
  "陈",
  "杨",
  "黄",
  "赵",
  "吴",
  "周",
  "徐",
  "孙",
  "马",
  "朱",
  "胡",
  "郭",
  "何",
  "高",
];
const CHINESE_GIVEN = [
  "小",
  "明",
  "华",
  "伟",
  "芳",
  "娜",
  "秀",
  "英",
  "敏",
  "静",
  "丽",
  "强",
  "磊",
  "军",
  "洋",
  "勇",
  "艳",
  "杰",
  "涛",
  "超",
];
const JAPANESE_FAMILY = ["山田", "佐藤", "鈴木", "高橋", "田中", "渡辺", "伊藤", "中村", "小林", "加藤"];
const JAPANESE_GIVEN = ["太郎", "花子", "健太", "さくら", "翔", "陽菜", "大輔", "美咲", "ひろし", "ゆい"];
const KOREAN_FAMILY = ["김", "이", "박", "최", "정", "강", "조", "윤"];
const KOREAN_GIVEN = ["민준", "서연", "지호", "하은", "도윤", "서준", "지우", "예은"];
const CJK_PLACE_HEADS = [
  "東京",
  "大阪",
  "京都",
  "札幌",
  "横浜",
  "北京",
  "上海",
  "广州",
  "深圳",
  "南京",
  "서울",
  "부산",
];
const CJK_PLACE_TAILS = ["都", "府", "市", "駅", "区", "县", "省", "大学", "港", "特别市", "광역시", ""];
const ARABIC_NAMES = [
  "محمد العلي",
  "أحمد حسن",
  "فاطمة الزهراء",
  "عمر خالد",
  "ليلى",
  "دمشق",
  "القاهرة",
  "בית לחם",
  "דוד כהן",
  "राम शर्मा",
  "मुंबई",
];
const ADJECTIVES = [
  "Great",
  "Silent",
  "Red",
  "Lost",
  "Last",
  "Golden",
  "Dark",
  "Little",
  "Eternal",
  "Broken",
  "Secret",
  "Wild",
  "Blue",
  "Final",
];
const NOUNS = [
  "River",
  "Garden",
  "Night",
  "Empire",
  "Road",
  "Symphony",
  "Mirror",
  "Kingdom",
  "Storm",
  "Island",
  "Heart",
  "Machine",
  "Office",
  "Fire",
];
const WORK_SUFFIXES = [
  " (album)",
  " (film)",
  " (1999 film)",
  " (novel)",
  " (song)",
  " (TV series)",
  " (EP)",
  " (video game)",
  "",
];
const ORG_FORMS = [
  (p: string) => `FC ${p}`,
  (p: string) => `${p} FC`,
  (p: string) => `University of ${p}`,
  (p: string) => `Université de ${p}`,
  (p: string) => `${p} Symphony Orchestra`,
  (p: string) => `${p} City Council`,
  (p: string) => `Bank of ${p}`,
  (p: string) => `${p} Railway Company`,
  (p: string) => `F.C. ${p}`,
  (p: string) => `${p} & Sons Ltd.`,
];
const EVENT_FORMS = [
  (p: string, y: number) => `${y} ${p} Marathon`,
  (p: string) => `Battle of ${p}`,
  (_: string, y: number) => `${y} FIFA World Cup`,
  (p: string) => `Siege of ${p}`,
  (p: string, y: number) => `${p} Film Festival ${y}`,
  (p: string, y: number) => `${y}–${(y + 1) % 100} ${p} season`,
  (p: string, y: number) => `${y} ${p} earthquake`,
];
const CODE_WORDS = [
  "AC/DC",
  "C++",
  "R2-D2",
  "3M",
  "!!!",
  "Guns N' Roses",
  "M*A*S*H",
  "+44",
  "(hed) p.e.",
  "Ke$ha",
  "Ⅻ Legion",
  "№ 5",
  "½ Moon",
  "Wham!",
  "Sigur Rós",
  "Mötley Crüe",
  "Motörhead",
  "B-52",
  "F-16",
  "U2",
];
const GENERA = [
  "Quercus",
  "Panthera",
  "Homo",
  "Rosa",
  "Canis",
  "Felis",
  "Ursus",
  "Aquila",
  "Pinus",
  "Salix",
  "Carex",
  "Eucalyptus",
  "Drosophila",
  "Bufo",
];
const EPITHET_HEADS = [
  "rob",
  "le",
  "sapi",
  "can",
  "lup",
  "cat",
  "arct",
  "chrys",
  "sylv",
  "alb",
  "nigr",
  "austral",
  "japon",
  "mont",
  "ripar",
];
const EPITHET_TAILS = [
  "ur",
  "o",
  "ens",
  "ina",
  "us",
  "is",
  "ensis",
  "ii",
  "ica",
  "ana",
  "aetos",
  "estris",
  "icus",
  "a",
];
const EMOJI = ["🚀", "🍕", "⚽", "🎵", "🌍", "❤️", "👩‍💻", "🏳️‍🌈", "🔥", "✨", "🐍", "🎬"];
const PREDICATE_LABELS = [
  "instance of",
  "place of birth",
  "member of sports team",
  "country",
  "located in",
  "occupation",
  "award received",
  "educated at",
  "spouse",
  "child",
  "genre",
  "performer",
  "director",
  "cast member",
  "author",
  "publisher",
  "owned by",
  "headquarters location",
  "sex or gender",
  "country of citizenship",
  "part of",
  "has part",
  "follows",
  "followed by",
  "isLocatedIn",
  "playsFor",
  "wasBornIn",
  "hasWonPrize",
  "isAffiliatedTo",
  "actedIn",
  "hasChild",
  "isMarriedTo",
  "livesIn",
  "diedIn",
  "worksAt",
  "graduatedFrom",
  "hasGender",
  "isCitizenOf",
  "created",
  "influences",
  "dealsWith",
  "hasOfficialLanguage",
  "hasCapital",
  "participatedIn",
  "owns",
  "directed",
  "wroteMusicFor",
  "edited",
  "isLeaderOf",
  "taxon rank",
  "parent taxon",
  "point in time",
  "start time",
  "end time",
  "significant event",
  "named after",
  "sport",
  "position held",
  "languages spoken",
  "record label",
  "original language",
  "narrative location",
];
const PREDICATE_QUALIFIERS = ["", " (former)", " (disputed)", " of record", " (since)", " (until)", " by", " during"];

const SOURCE_TYPES = ["wikidata", "dbpedia", "yago", "manual", "geonames", ""];
const SOURCE_WEIGHTS = [0.55, 0.2, 0.12, 0.06, 0.06, 0.01];

type Kind = "person" | "place" | "organization" | "work" | "event" | "code" | "taxon";
/** Kind of an item, its type, and its share of the items: the type skew follows from these. */
const KINDS: ReadonlyArray<readonly [Kind, EntityType, number]> = [
  ["person", "0", 0.42],
  ["place", "2", 0.2],
  ["organization", "3", 0.12],
  ["work", "4", 0.12],
  ["event", "5", 0.06],
  ["code", "6", 0.03],
  ["taxon", "7", 0.05],
];

type Rand = () => number;

function pick<T>(rand: Rand, list: readonly T[]): T {
  return list[Math.floor(rand() * list.length)] as T;
}

function pickWeighted(rand: Rand, weights: readonly number[]): number {
  let u = rand();
  for (let k = 0; k < weights.length; k++) {
    u -= weights[k] as number;
    if (u < 0) return k;
  }
  return weights.length - 1;
}

function latinSurname(rand: Rand): string {
  const core = pick(rand, LATIN_SURNAME_HEADS) + pick(rand, LATIN_SURNAME_TAILS);
  return rand() < 0.08 ? pick(rand, SURNAME_PREFIXES) + core : core;
}

function latinPlace(rand: Rand): string {
  let name = pick(rand, PLACE_HEADS) + pick(rand, PLACE_TAILS);
  if (rand() < 0.5) name += pick(rand, PLACE_TAILS).replace(/^./, (c) => c.toLowerCase());
  if (rand() < 0.12) name = pick(rand, PLACE_PREFIXES) + name;
  if (rand() < 0.2) name += pick(rand, PLACE_QUALIFIERS);
  return name;
}

function personName(rand: Rand): string {
  const script = rand();
  if (script < 0.72) {
    let name = pick(rand, LATIN_FIRST);
    if (rand() < 0.15) name += ` ${String.fromCharCode(65 + Math.floor(rand() * 26))}.`;
    if (rand() < 0.05) name += `-${pick(rand, LATIN_FIRST)}`;
    name += ` ${latinSurname(rand)}`;
    if (rand() < 0.12) name += pick(rand, DISAMBIGUATORS);
    return name;
  }
  if (script < 0.8) return `${pick(rand, CYRILLIC_FIRST)} ${pick(rand, CYRILLIC_LAST)}`;
  if (script < 0.86)
    return pick(rand, CHINESE_SURNAMES) + pick(rand, CHINESE_GIVEN) + (rand() < 0.6 ? pick(rand, CHINESE_GIVEN) : "");
  if (script < 0.89) return `${pick(rand, JAPANESE_FAMILY)} ${pick(rand, JAPANESE_GIVEN)}`;
  if (script < 0.91) return pick(rand, KOREAN_FAMILY) + pick(rand, KOREAN_GIVEN);
  if (script < 0.95) return `${pick(rand, GREEK_FIRST)} ${pick(rand, GREEK_LAST)}`;
  if (script < 0.97) return `${pick(rand, TURKISH_NAMES)} ${pick(rand, TURKISH_NAMES)}`;
  return pick(rand, ARABIC_NAMES);
}

function placeName(rand: Rand): string {
  const script = rand();
  if (script < 0.78) return latinPlace(rand);
  if (script < 0.83)
    return pick(rand, GERMAN_STREETS) + (rand() < 0.7 ? ` ${1 + Math.floor(rand() * 120)}, ${latinPlace(rand)}` : "");
  if (script < 0.89)
    return pick(rand, CJK_PLACE_HEADS) + pick(rand, CJK_PLACE_TAILS) + (rand() < 0.5 ? pick(rand, CHINESE_GIVEN) : "");
  if (script < 0.94) return pick(rand, CYRILLIC_PLACE_HEADS) + pick(rand, CYRILLIC_PLACE_TAILS);
  if (script < 0.97) return pick(rand, GREEK_PLACES) + (rand() < 0.5 ? ` ${pick(rand, GREEK_LAST)}` : "");
  return `${pick(rand, TURKISH_NAMES)} ${pick(rand, ["Province", "Airport", "Köprüsü", "İli"])}`;
}

function itemName(rand: Rand, kind: Kind): string {
  switch (kind) {
    case "person":
      return personName(rand);
    case "place":
      return placeName(rand);
    case "organization":
      return rand() < 0.85
        ? pick(rand, ORG_FORMS)(rand() < 0.7 ? latinPlace(rand) : latinSurname(rand))
        : pick(rand, CJK_PLACE_HEADS) + "大学";
    case "work": {
      const form = rand();
      const title =
        form < 0.4
          ? `The ${pick(rand, ADJECTIVES)} ${pick(rand, NOUNS)}`
          : form < 0.6
            ? `${pick(rand, NOUNS)} of the ${pick(rand, NOUNS)}`
            : form < 0.75
              ? `Symphony No. ${1 + Math.floor(rand() * 15)} in ${pick(rand, ["C", "D", "E♭", "F♯", "G", "A", "B♭"])} ${rand() < 0.5 ? "major" : "minor"}`
              : form < 0.85
                ? `“${pick(rand, ADJECTIVES)} ${pick(rand, NOUNS)}”`
                : form < 0.92
                  ? `¿${pick(rand, ADJECTIVES)}?`
                  : `${pick(rand, JAPANESE_GIVEN)}の${pick(rand, ["物語", "歌", "夏", "世界"])}`;
      return title + pick(rand, WORK_SUFFIXES);
    }
    case "event":
      return pick(rand, EVENT_FORMS)(latinPlace(rand), 1800 + Math.floor(rand() * 225));
    case "code":
      return rand() < 0.5
        ? pick(rand, CODE_WORDS)
        : `${String.fromCharCode(65 + Math.floor(rand() * 26))}${String.fromCharCode(65 + Math.floor(rand() * 26))}-${Math.floor(rand() * 1000)}`;
    case "taxon":
      return `${pick(rand, GENERA)} ${pick(rand, EPITHET_HEADS)}${pick(rand, EPITHET_TAILS)}`;
  }
}

/** ASCII letters and digits to their full-width forms (U+FF01..U+FF5E); NFKC folds them back. */
function toFullWidth(s: string): string {
  return s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));
}

function decorate(rand: Rand, name: string): string {
  const u = rand();
  if (u < LIGATURE_SHARE) return name.replace(/fi/g, "ﬁ").replace(/fl/g, "ﬂ").replace(/ff/g, "ﬀ").replace(/ss/g, "ß");
  if (u < LIGATURE_SHARE + FULL_WIDTH_SHARE) return toFullWidth(name);
  if (u < LIGATURE_SHARE + FULL_WIDTH_SHARE + EMOJI_SHARE)
    return rand() < 0.5 ? `${name} ${pick(rand, EMOJI)}` : `${pick(rand, EMOJI)} ${name}`;
  return name;
}

function predicateLabel(k: number): string {
  const base = PREDICATE_LABELS[k % PREDICATE_LABELS.length] as string;
  const round = Math.floor(k / PREDICATE_LABELS.length);
  return round === 0
    ? base
    : base +
        (PREDICATE_QUALIFIERS[round % PREDICATE_QUALIFIERS.length] as string) +
        (round >= PREDICATE_QUALIFIERS.length ? ` ${round}` : "");
}

// ---------------------------------------------------------------------------------------------
// The graph

/** entityId of entity number `i` (0-based): properties first (`P1`...), then items (`Q1`...). */
export function generatedEntityId(i: number, predicates: number): string {
  return i < predicates ? `P${i + 1}` : `Q${i - predicates + 1}`;
}

/** The entities, one at a time. */
export function* generateEntities(options: GenerateOptions): Generator<Entity> {
  const p = plan(options);
  const rand = mulberry32(p.seed ^ NAME_STREAM);
  const kindWeights = KINDS.map((k) => k[2]);
  for (let i = 0; i < p.entities; i++) {
    const sourceType = SOURCE_TYPES[pickWeighted(rand, SOURCE_WEIGHTS)] as string;
    if (i < p.predicates) {
      yield { entityId: generatedEntityId(i, p.predicates), rawIdentifier: predicateLabel(i), type: "1", sourceType };
      continue;
    }
    const [kind, type] = KINDS[pickWeighted(rand, kindWeights)] as readonly [Kind, EntityType, number];
    yield {
      entityId: generatedEntityId(i, p.predicates),
      rawIdentifier: decorate(rand, itemName(rand, kind)),
      type,
      sourceType,
    };
  }
}

/**
 * Calls `visit` once per statement with entity numbers (see generatedEntityId) and the two halves of
 * its fingerprint. No object is made per statement.
 */
export function forEachGeneratedStatement(
  options: GenerateOptions,
  visit: (s: number, p: number, o: number, fpHi: number, fpLo: number) => void,
): void {
  for (const t of statementTuples(options)) visit(t[0], t[1], t[2], t[3], t[4]);
}

/** The statements, one object at a time (for tests and small graphs; the writer avoids the objects). */
export function* generateStatements(options: GenerateOptions): Generator<StatementInput> {
  const p = plan(options);
  const ids = entityIdTable(p);
  for (const t of statementTuples(options))
    yield toStatement(ids, t[0], t[1], t[2], p.explicit ? hex8(t[3]) + hex8(t[4]) : undefined);
}

/** Lazily generated entities and statements: iterate each as often as needed, same output each time. */
export function generateGraph(options: GenerateOptions): {
  entities: Iterable<Entity>;
  statements: Iterable<StatementInput>;
} {
  plan(options); // validate now, not on first iteration
  return {
    entities: { [Symbol.iterator]: () => generateEntities(options) },
    statements: { [Symbol.iterator]: () => generateStatements(options) },
  };
}

/** Builds the generated graph in memory, through a GraphBuilder (no files). */
export function buildGeneratedGraph(options: GenerateOptions): Graph {
  const builder = new GraphBuilder();
  for (const e of generateEntities(options)) builder.addEntity(e);
  for (const st of generateStatements(options)) builder.addStatement(st);
  return builder.build();
}

export interface WrittenGraph {
  entities: string;
  statements: string;
  entityCount: number;
  statementCount: number;
  bytes: number;
}

/**
 * Writes `entities.jsonl` and `statements.jsonl` into `dir` (created if missing), streaming: the
 * statement lines are built as text straight from entity numbers, in batches, with backpressure.
 */
export async function writeGraphJsonl(dir: string, options: GenerateOptions): Promise<WrittenGraph> {
  const p = plan(options);
  await mkdir(dir, { recursive: true });
  const entities = join(dir, "entities.jsonl");
  const statements = join(dir, "statements.jsonl");
  const entityWriter = new BatchWriter(entities);
  for (const e of generateEntities(options)) {
    // Key order as in the contract's example; ids are ASCII, the identifier needs JSON escaping.
    await entityWriter.line(
      `{"entityId":"${e.entityId}","rawIdentifier":${JSON.stringify(e.rawIdentifier)},"type":"${e.type}","sourceType":${JSON.stringify(e.sourceType)}}`,
    );
  }
  const entityBytes = await entityWriter.close();

  const ids = entityIdTable(p);
  const statementWriter = new BatchWriter(statements);
  // Text per chunk of statements, then one awaited write: backpressure without a promise per line.
  const tuples = statementTuples(options);
  for (let start = 0; start < p.statements; start += WRITE_CHUNK_STATEMENTS) {
    let text = "";
    for (let k = Math.min(WRITE_CHUNK_STATEMENTS, p.statements - start); k > 0; k--) {
      const t = tuples.next().value as StatementTuple;
      text += `{"subjectEntityId":"${ids[t[0]]}","predicateEntityId":"${ids[t[1]]}","objectEntityId":"${ids[t[2]]}"`;
      text += p.explicit ? `,"statementFingerprint":"${hex8(t[3])}${hex8(t[4])}"}\n` : "}\n";
    }
    await statementWriter.raw(text);
  }
  const statementBytes = await statementWriter.close();
  return {
    entities,
    statements,
    entityCount: p.entities,
    statementCount: p.statements,
    bytes: entityBytes + statementBytes,
  };
}

// ---------------------------------------------------------------------------------------------
// Helpers

/** (subject, predicate, object, fingerprint high, fingerprint low): one tuple, reused at each step. */
type StatementTuple = [number, number, number, number, number];

/** The statement stream, the one source of truth for every output. */
function* statementTuples(options: GenerateOptions): Generator<StatementTuple, void, undefined> {
  const p = plan(options);
  const { predicates, items, statements, seed } = p;
  if (statements === 0) return;
  const rand = mulberry32(seed ^ STATEMENT_STREAM);
  const predicateZipf = new ZipfTable(predicates, PREDICATE_EXPONENT);
  const subjectOf = new AffinePermutation(items, 2654435761, seed);
  const objectOf = new AffinePermutation(items, 2246822519, seed ^ 0x5bd1e995);
  const classCount = Math.min(CLASS_COUNT, items);
  const hiSeed = fmix32(seed ^ 0x27d4eb2f);
  const tuple: StatementTuple = [0, 0, 0, 0, 0];
  for (let i = 0; i < statements; i++) {
    const pr = predicateZipf.rank(rand());
    // Class-like properties ("instance of") are had by any item about once, and point at a few
    // hubs. The others give power-law out-degrees, and point anywhere, hubs favoured.
    const classLike = pr % CLASS_PREDICATE_EVERY === 0;
    const subjectRank = classLike ? Math.floor(rand() * items) : powerLawRank(rand(), items, SUBJECT_EXPONENT);
    const objectRank = classLike ? powerLawRank(rand(), classCount, 1) : powerLawRank(rand(), items, OBJECT_EXPONENT);
    tuple[0] = predicates + subjectOf.map(subjectRank);
    tuple[1] = pr;
    tuple[2] = predicates + objectOf.map(objectRank);
    // Low half: a bijection of i, so fingerprints never collide. High half: mixed, for spread.
    tuple[3] = fmix32((i ^ hiSeed) >>> 0);
    tuple[4] = fmix32((i + seed) >>> 0);
    yield tuple;
  }
}

function entityIdTable(p: Plan): string[] {
  const ids = new Array<string>(p.entities);
  for (let i = 0; i < p.entities; i++) ids[i] = generatedEntityId(i, p.predicates);
  return ids;
}

function toStatement(
  ids: readonly string[],
  s: number,
  p: number,
  o: number,
  fingerprint: string | undefined,
): StatementInput {
  const st: StatementInput = {
    subjectEntityId: ids[s] as string,
    predicateEntityId: ids[p] as string,
    objectEntityId: ids[o] as string,
  };
  if (fingerprint !== undefined) st.statementFingerprint = fingerprint;
  return st;
}

function hex8(x: number): string {
  return (x >>> 0).toString(16).padStart(8, "0");
}

/** Lines into a file in ~1 MB writes, waiting for "drain" when the stream asks to. */
class BatchWriter {
  private readonly out;
  private readonly closed: Promise<void>;
  private batch = "";
  private bytes = 0;
  constructor(path: string) {
    this.out = createWriteStream(path);
    this.closed = new Promise<void>((resolve, reject) => {
      this.out.on("close", resolve);
      this.out.on("error", reject);
    });
  }
  async line(text: string): Promise<void> {
    this.batch += text + "\n";
    if (this.batch.length >= WRITE_BATCH_CHARS) await this.flush();
  }
  async raw(text: string): Promise<void> {
    this.batch += text;
    if (this.batch.length >= WRITE_BATCH_CHARS) await this.flush();
  }
  private async flush(): Promise<void> {
    this.bytes += Buffer.byteLength(this.batch);
    const ok = this.out.write(this.batch);
    this.batch = "";
    if (!ok) await once(this.out, "drain");
  }
  async close(): Promise<number> {
    if (this.batch.length > 0) await this.flush();
    this.out.end();
    await this.closed;
    return this.bytes;
  }
}
