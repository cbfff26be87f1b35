BdataJÈ)¿XrÍ½hv?
!^¿şK¿:uB¿