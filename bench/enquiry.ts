// The event the delivery benchmarks write: enquiry `i`, as the booking product sends one (its body ~390 bytes).
export const enquiry = (i: number) => ({
  full_name: `Guest ${i}`, email: `guest${i}@example.com`, country: 'PT',
  message: 'We would like to join the Douro Valley trip in May with two children. Is there a family rate?',
  trip: { id: 7, title: 'Douro Valley' },
});
