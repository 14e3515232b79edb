// The OpenAPI document and the Postman collection as their generators make them (@fastify/swagger,
// openapi-to-postmanv2): walked key by key, in a shape that is the generator's, so the walk is not typed.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above; the one such alias
export type Json = Record<string, any>;
