// The largest batch the WordPress bridge really sends: 500 reviews at its 20,000-character cap, shaped as its mapper
// builds them (Waypost_Bridge_Mapper::review, run on the WP Travel Engine fixtures: one such operation was 20,163
// bytes as wp_json_encode sent it). src/host/routes.ts sizes the batch body limit from it.
const WORDS = ('the guides were superb and the teahouses warm; we walked the circuit in twelve days, saw the sunrise '
  + 'over the peaks and would book again with friends next spring').split(' ');

/** A review's text of exactly `chars` characters, words as a guest writes them. */
export function reviewText(chars = 20_000, seed = 1): string {
  let text = '';
  for (let i = seed; text.length < chars; i++) text += `${WORDS[(i * 7) % WORDS.length]} `;
  return text.slice(0, chars);
}

/** `count` put operations of real-sized reviews on trip 19, ids from 1. */
export function reviewOperations(count = 500): Array<{ op: 'put'; resource: 'reviews'; id: number; data: object }> {
  return Array.from({ length: count }, (_, i) => ({
    op: 'put', resource: 'reviews', id: i + 1,
    data: {
      trip_id: 19, author_name: 'Ana Ferreira de Souza', rating: null, content: reviewText(20_000, i),
      created_at: '2026-11-27T19:42:00Z',
    },
  }));
}
