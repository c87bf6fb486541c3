from nginxgen.shell.cli import console

console()
