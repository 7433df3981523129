-- An admin's /memory forget now runs the tool forget_any (a memory of any
-- shelf), where it used to run forget by hand. Requests still waiting for a
-- yes, or confirmed but not yet run, take the new tool's name, so that they
-- run on every shelf as the admin saw them.
update actions set tool = 'forget_any'
    where origin = 'admin' and tool = 'forget' and state in ('pending', 'confirmed');
