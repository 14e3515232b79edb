// The fixed data the demo catalogue (src/demo/catalogue.ts) draws from: trips, names, places and texts.

export interface TripSeed {
  title: string;
  code: string;
  destinations: string[];
  activities: string[];
  days: number;
  price: number;
  currency: 'EUR' | 'USD';
  excerpt: string;
  ages?: [number, number | null];
  group: [number, number];
}

export const TRIPS: TripSeed[] = [
  { title: 'Douro Valley Wine Trail', code: 'PT-DOU-7', days: 7, price: 1290, currency: 'EUR',
    destinations: ['Portugal', 'Porto', 'Douro Valley'], activities: ['Wine tasting', 'River cruise', 'Walking'],
    excerpt: 'Seven days among terraced vineyards, quintas and the slow bends of the Douro.', group: [2, 14] },
  { title: 'Annapurna Base Camp Trek', code: 'NP-ABC-14', days: 14, price: 1850, currency: 'USD',
    destinations: ['Nepal', 'Pokhara', 'Annapurna'], activities: ['Trekking', 'Mountaineering', 'Culture'],
    excerpt: 'Through rhododendron forests and Gurung villages to the foot of Annapurna I.',
    ages: [16, 65], group: [4, 12] },
  { title: 'Everest Base Camp Classic', code: 'NP-EBC-16', days: 16, price: 2290, currency: 'USD',
    destinations: ['Nepal', 'Khumbu'], activities: ['Trekking', 'Mountaineering'],
    excerpt: 'The classic route from Lukla to Kala Patthar with acclimatisation days in Namche.',
    ages: [18, 65], group: [4, 12] },
  { title: 'Amalfi Coast Walking Holiday', code: 'IT-AMA-8', days: 8, price: 1640, currency: 'EUR',
    destinations: ['Italy', 'Amalfi', 'Positano'], activities: ['Walking', 'Food', 'Boat trip'],
    excerpt: 'Lemon groves, cliff paths and the Path of the Gods above the sea.', group: [2, 16] },
  { title: 'Iceland Ring Road Self-Drive', code: 'IS-RING-10', days: 10, price: 2150, currency: 'EUR',
    destinations: ['Iceland', 'Reykjavik', 'Vik', 'Akureyri'],
    activities: ['Self-drive', 'Hot springs', 'Glacier hike'],
    excerpt: 'Waterfalls, black beaches and glacier lagoons at your own pace.', group: [1, 6] },
  { title: 'Kyoto and Nara Cultural Journey', code: 'JP-KYO-9', days: 9, price: 2890, currency: 'USD',
    destinations: ['Japan', 'Kyoto', 'Nara'], activities: ['Culture', 'Temples', 'Food'],
    excerpt: 'Temples, tea houses and a night in a ryokan, with a local guide.', group: [2, 12] },
  { title: 'Patagonia W Trek', code: 'CL-PAT-9', days: 9, price: 2450, currency: 'USD',
    destinations: ['Chile', 'Torres del Paine'], activities: ['Trekking', 'Wildlife'],
    excerpt: 'The W circuit in Torres del Paine, with refugio nights and glacier views.',
    ages: [14, 70], group: [4, 14] },
  { title: 'Morocco Desert and Atlas', code: 'MA-DES-8', days: 8, price: 980, currency: 'EUR',
    destinations: ['Morocco', 'Marrakech', 'Merzouga'], activities: ['Camel trek', 'Culture', 'Walking'],
    excerpt: 'From the souks of Marrakech over the High Atlas to a camp in the Erg Chebbi dunes.', group: [2, 16] },
  { title: 'Scottish Highlands Explorer', code: 'UK-SCO-6', days: 6, price: 1190, currency: 'EUR',
    destinations: ['Scotland', 'Inverness', 'Isle of Skye'], activities: ['Walking', 'Whisky tasting', 'Castles'],
    excerpt: 'Glens, lochs and a ferry to Skye, with distillery visits on the way.', group: [2, 16] },
  { title: 'Costa Rica Rainforest and Beaches', code: 'CR-RAIN-11', days: 11, price: 2390, currency: 'USD',
    destinations: ['Costa Rica', 'Arenal', 'Manuel Antonio'], activities: ['Wildlife', 'Zip-lining', 'Beach'],
    excerpt: 'Volcanoes, cloud forest and the Pacific coast for families and nature lovers.',
    ages: [6, null], group: [2, 14] },
  { title: 'Dolomites Hut-to-Hut', code: 'IT-DOL-7', days: 7, price: 1450, currency: 'EUR',
    destinations: ['Italy', 'Dolomites', 'Cortina'], activities: ['Trekking', 'Via ferrata'],
    excerpt: 'Alta Via 1 between mountain huts under pale limestone towers.', ages: [16, 70], group: [4, 10] },
  { title: 'Kilimanjaro Machame Route', code: 'TZ-KIL-8', days: 8, price: 2690, currency: 'USD',
    destinations: ['Tanzania', 'Moshi', 'Kilimanjaro'], activities: ['Trekking', 'Mountaineering'],
    excerpt: 'Six days on the Whiskey route to Uhuru Peak, with crew and park fees included.',
    ages: [16, 70], group: [2, 12] },
];

export const FIRST = [
  'Ana', 'João', 'Maria', 'Liam', 'Olivia', 'Noah', 'Emma', 'Lucas', 'Sofia', 'Mateo', 'Chloé', 'Hugo', 'Aiko', 'Kenji',
  'Priya', 'Arjun', 'Fatima', 'Omar', 'Ingrid', 'Lars', 'Zanele', 'Thabo', 'Mei', 'Wei', 'Isabella', 'Diego', 'Hannah',
  'Felix', 'Amara', 'Kwame',
];
export const LAST = [
  'Silva', 'Santos', 'Murphy', 'Walsh', 'Müller', 'Schmidt', 'Dubois', 'Laurent', 'Rossi', 'Bianchi', 'Tanaka', 'Sato',
  'Sharma', 'Patel', 'Haddad', 'Nasser', 'Johansson', 'Larsen', 'Dlamini', 'Nkosi', 'Chen', 'Wang', 'García', 'López',
  'Becker', 'Novak', 'Okafor', 'Mensah', 'Evans', 'Kowalski',
];
export const PLACES: Array<[city: string, country: string, postcode: string]> = [
  ['Lisbon', 'PT', '1100-148'], ['Dublin', 'IE', 'D02 X285'], ['Berlin', 'DE', '10115'],
  ['Lyon', 'FR', '69002'], ['Milan', 'IT', '20121'],
  ['Osaka', 'JP', '530-0001'], ['Pune', 'IN', '411001'], ['Amman', 'JO', '11118'],
  ['Oslo', 'NO', '0150'], ['Cape Town', 'ZA', '8001'],
  ['Toronto', 'CA', 'M5H 2N2'], ['Austin', 'US', '78701'], ['Melbourne', 'AU', '3000'],
  ['Madrid', 'ES', '28013'], ['Kraków', 'PL', '31-042'],
];
export const REVIEW_TEXT = [
  'Our guide knew every path and every story. Worth every cent.',
  'Well organised from the first e-mail to the airport transfer home.',
  'Hard days, unforgettable views. Pack better boots than I did.',
  'The food alone was worth the trip. Small group, lovely people.',
  'A couple of long transfers, otherwise perfect.',
  'Booked for my parents; they came back already planning the next one.',
];
export const ENQUIRY_TEXT = [
  'Do you have departures in late September for a group of four?',
  'Is this trip suitable for a 12-year-old who walks a lot?',
  'Can we add two extra nights in the city at the end?',
  'What is the deposit, and when is the balance due?',
  'Are flights included, or only ground arrangements?',
  'We are vegetarian; is that easy on this itinerary?',
];
export const STREETS = ['High Street', 'Rua Augusta', 'Market Square', 'Harbour Road', 'Via Roma', 'Main Street'];
