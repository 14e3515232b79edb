// Table types owned by the admin capability (admins, sessions, API usage).
export interface AdminTables {}
