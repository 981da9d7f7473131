; Inno Setup 6 script: wraps the PyInstaller bundle dist\fieldapp\ into a Windows installer
; with a Start-menu entry, an optional desktop icon and an uninstaller.
;
; Build on Windows, from the repository root in Git Bash (bundle, then installer):
;     bash packaging/build.sh --installer
; or, with dist\fieldapp\ already built, in any shell:
;     "C:\Program Files (x86)\Inno Setup 6\ISCC.exe" /DAppVersion=0.1.0 packaging\windows\fieldapp.iss
; Output: dist\fieldapp-VERSION-setup.exe
;
; Installs per user by default (no administrator rights needed on a crew laptop); the first
; page offers "all users" to an administrator. Uninstalling removes the program only: settings
; and site visits live in the user's AppData (platformdirs "fieldapp") and are never deleted.

#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#define AppName "fieldapp"
#define AppExe "fieldapp.exe"
#define Bundle "..\..\dist\fieldapp"

[Setup]
; AppId identifies the app across versions (upgrades, uninstall): never change it.
AppId={{C71BE254-DCEC-4A74-BC95-1DD265AA269F}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher=fieldapp team
AppComments=Field app for surveyors, foresters and wetland scientists: GNSS, rangefinder and caliper at the site, with the rules checked on the spot.
DefaultDirName={autopf}\{#AppName}
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir=..\..\dist
OutputBaseFilename={#AppName}-{#AppVersion}-setup
SetupIconFile=fieldapp.ico
UninstallDisplayIcon={app}\{#AppExe}
UninstallDisplayName={#AppName} {#AppVersion}
Compression=lzma2
SolidCompression=yes
WizardStyle=modern
CloseApplications=yes

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
; The whole one-folder bundle: fieldapp.exe, fieldapp-cli.exe and _internal\.
Source: "{#Bundle}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\{#AppExe}"; WorkingDir: "{userdocs}"
Name: "{autoprograms}\{#AppName} (simulated devices)"; Filename: "{app}\{#AppExe}"; Parameters: "--simulate"; WorkingDir: "{userdocs}"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#AppExe}"; WorkingDir: "{userdocs}"; Tasks: desktopicon

[Run]
Filename: "{app}\{#AppExe}"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent

[UninstallDelete]
; Files the bundle may write beside itself at run time (Python caches); user data is elsewhere.
Type: filesandordirs; Name: "{app}\_internal\__pycache__"
