-- The admin lists are paged by key with their filters answered from an index, so a page costs the
-- same with 50 accounts or 50,000. Users: by role, by active state, or both, each in id order
-- (the username search uses the UNIQUE NOCASE index users already has). Sign-in attempts: by status,
-- newest first. Abuse reports and advertisements already have (state, id) and (status, id).
CREATE INDEX users_role ON users (role, id);
CREATE INDEX users_active ON users (is_active, id);
CREATE INDEX users_role_active ON users (role, is_active, id);
CREATE INDEX login_logs_status ON login_logs (status, id);
