// Imported by scripts/test.mjs before tsx (`--import this --import tsx`), to start each test process
// sooner. While tsx's module hooks are registered, every ES module loaded costs a round trip to the
// hooks thread, and kysely and typebox are about 650 small ES modules: loaded here first, without
// hooks, they cost a second less CPU time per test process, and the tests' own imports of them find
// them loaded (the same module instances). A test file run without it works the same, only slower.
await import('kysely');
await import('typebox');
