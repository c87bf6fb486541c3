"""The browser page (`nginxgen web`): nginxgen in Pyodide on a static page, built here."""
