"""A labelled set of values assigned to secret-named keys: the thresholds of the generic
assignment rule (govcore.detection.secrets.assignments: MIN_SECRET_LENGTH, MIN_ENTROPY_BITS,
ONE_CLASS_MIN_LENGTH, ONE_CLASS_MIN_ENTROPY_BITS) were chosen on it, and a test keeps them
classifying every case right.

Each case is a line as it would appear in a file or an output, and the value that must be
reported (None: nothing must be). The values are made up; the placeholders and references are the
kinds that configuration files, documentation and code samples hold.
"""

from __future__ import annotations

SECRET_CASES: list[tuple[str, str | None]] = [
    # --- secrets: real-looking passwords, tokens and keys of no vendor format -----------------
    ("password: S3cure!Passw0rd#2024", "S3cure!Passw0rd#2024"),
    ('password = "value with quotes and spaces"', "value with quotes and spaces"),
    ("DB_PASSWORD=hunter2hunter2", "hunter2hunter2"),
    ("db_password: Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("export API_KEY='a8f5f167f44f4964e6c998dee827110c'", "a8f5f167f44f4964e6c998dee827110c"),
    ('"client_secret": "Zx9-Qw2_Lk7.Mn4"', "Zx9-Qw2_Lk7.Mn4"),
    ("SECRET_KEY = 'django-insecure-7h#k2@x!q9w'", "django-insecure-7h#k2@x!q9w"),
    ("auth_token=9f86d081884c7d659a2feaa0c55ad015", "9f86d081884c7d659a2feaa0c55ad015"),
    ("password: correcthorsebatterystaple", "correcthorsebatterystaple"),
    ('session_token: "mqo4v2ZzT9xkLr8p"', "mqo4v2ZzT9xkLr8p"),
    ("credentials = 'u7Yh3Kp9Wq'", "u7Yh3Kp9Wq"),
    ("--password=Pa55w0rd!x", "Pa55w0rd!x"),
    ("pwd = 'k9#Lm2$Qx'", "k9#Lm2$Qx"),
    ("mysql_root_password: 84629175", "84629175"),
    ('"passphrase": "blue cactus river lamp"', "blue cactus river lamp"),
    ("access_key = Xk82LmQp0Zt5", "Xk82LmQp0Zt5"),
    # --- not secrets: masks, placeholders, references, numbers, URLs, names ---------------------
    ("password: ********", None),
    ("password: '••••••••'", None),
    ("api_key: <your-key>", None),
    ("api_key=your_api_key_here", None),
    ("API_KEY=YOUR_API_KEY", None),
    ("password=changeme", None),
    ("password: change_me_please", None),
    ("token: xxxxxxxxxxxxxxxx", None),
    ("secret: REPLACE_ME", None),
    ("token: ${GITHUB_TOKEN}", None),
    ("TOKEN=$CI_JOB_TOKEN", None),
    ("password: {{ vault_db_password }}", None),
    ("password = '%(db_password)s'", None),
    ("password = os.environ['DB_PASSWORD']", None),
    ("token: process.env.API_TOKEN", None),
    ("api_key = getenv('API_KEY')", None),
    ("password = self.password", None),
    ("password=get_password()", None),
    ("max_tokens: 2048", None),
    ("token_count=12", None),
    ("api_key_length: 32", None),
    ("password_reset_url: https://example.org/reset", None),
    ("token_url = https://auth.example.org/oauth/token", None),
    ("password_file: /run/secrets/db_password", None),
    ("secretName: my-app-secret", None),
    ("token_type: bearer", None),
    ("tokenizer: bert-base-uncased", None),
    ("secretary: Jane Smith", None),
    ("password: none", None),
    ("password: null", None),
    ("remember_password: true", None),
    ("password: hunter2", None),
    ("token: abc", None),
    ("password: aaaaaaaaaaaa", None),
    ("password: aaaa1111", None),
    ("password: abab1212abab", None),
    ("password: 12345678", None),
    ("token: 9876543210", None),
    ("password: password", None),
    ("secret: mysecret", None),
    ("api_key: abcdefgh", None),
    ("password=\nhost=db", None),
    ('password = ""', None),
    ("password_hint: 'name of my first dog'", None),
    ("api_key: ...", None),
    ("PWD=/home/user/project", None),
]
